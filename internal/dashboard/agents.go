package dashboard

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

func init() {
	add(map[string][3]string{
		"agents.title":   {"Agents", "Agenți", "Агенты"},
		"agents.empty":   {"No agents yet. Create one to get the code for your site.", "Încă nu aveți agenți. Creați unul pentru a obține codul pentru site.", "Агентов пока нет. Создайте агента, чтобы получить код для сайта."},
		"agents.name":    {"Chatbot name", "Numele chatbotului", "Имя чат-бота"},
		"agents.key":     {"Widget key", "Cheia widgetului", "Ключ виджета"},
		"agents.nokey":   {"No active key", "Nicio cheie activă", "Нет активного ключа"},
		"agents.updated": {"Last changed", "Ultima modificare", "Изменён"},
		"agents.new":     {"New agent", "Agent nou", "Новый агент"},
		"agents.create":  {"Create agent", "Creează agentul", "Создать агента"},
		"agents.newhint": {"You can set the greeting, colours, knowledge and AI on the agent's page next.", "Mesajul de întâmpinare, culorile, cunoștințele și AI-ul le puteți configura apoi pe pagina agentului.", "Приветствие, цвета, базу знаний и ИИ можно настроить затем на странице агента."},

		"agent.title":    {"Agent", "Agent", "Агент"},
		"agent.back":     {"All agents", "Toți agenții", "Все агенты"},
		"agent.sections": {"On this page", "Pe această pagină", "На этой странице"},
		"agent.created":  {"Agent created. Paste the embed code below into your site.", "Agentul a fost creat. Inserați codul de mai jos în site-ul dvs.", "Агент создан. Вставьте код ниже на свой сайт."},
		"agent.saved":    {"Settings saved.", "Setările au fost salvate.", "Настройки сохранены."},
		"agent.invalid":  {"The form was not filled in correctly. Please try again.", "Formularul nu a fost completat corect. Încercați din nou.", "Форма заполнена неверно. Попробуйте ещё раз."},
		"agent.toolarge": {"The form is too large.", "Formularul este prea mare.", "Форма слишком большая."},

		"embed.title":   {"Embed Code", "Cod de încorporare", "Код для вставки"},
		"embed.hint":    {"Paste this code into your site's HTML, just before </body>, on every page where the chat should appear.", "Inserați acest cod în HTML-ul site-ului, chiar înainte de </body>, pe fiecare pagină unde trebuie să apară chatul.", "Вставьте этот код в HTML сайта перед </body> на каждой странице, где должен появиться чат."},
		"embed.code":    {"Code snippet", "Fragment de cod", "Фрагмент кода"},
		"embed.copy":    {"Copy", "Copiază", "Копировать"},
		"embed.nokey":   {"This agent has no active key, so the chat appears on no site. Create a new key or activate one below.", "Acest agent nu are nicio cheie activă, deci chatul nu apare pe niciun site. Creați o cheie nouă sau activați una mai jos.", "У этого агента нет активного ключа, поэтому чат не показывается ни на одном сайте. Создайте новый ключ или включите один из ключей ниже."},
		"embed.keys":    {"Widget keys", "Cheile widgetului", "Ключи виджета"},
		"embed.key":     {"Key", "Cheie", "Ключ"},
		"embed.state":   {"State", "Stare", "Состояние"},
		"embed.since":   {"Created", "Creată", "Создан"},
		"embed.action":  {"Action", "Acțiune", "Действие"},
		"embed.on":      {"Active", "Activă", "Активен"},
		"embed.off":     {"Inactive", "Inactivă", "Неактивен"},
		"embed.enable":  {"Activate", "Activează", "Включить"},
		"embed.disable": {"Deactivate", "Dezactivează", "Отключить"},
		"embed.rotate":  {"Create a new key", "Creează o cheie nouă", "Создать новый ключ"},
		"embed.rotatehint": {"The new key replaces the active ones at once: update the code on your site right away (or activate the old key again until you have).",
			"Cheia nouă le înlocuiește imediat pe cele active: actualizați îndată codul de pe site (sau reactivați cheia veche până o faceți).",
			"Новый ключ сразу заменяет активные: сразу обновите код на сайте (или снова включите старый ключ, пока не обновите)."},
		"embed.rotated":     {"A new key was created and the old ones were deactivated.", "A fost creată o cheie nouă, iar cele vechi au fost dezactivate.", "Создан новый ключ, старые отключены."},
		"embed.activated":   {"Key activated.", "Cheia a fost activată.", "Ключ включён."},
		"embed.deactivated": {"Key deactivated: the chat no longer appears on sites that use it.", "Cheia a fost dezactivată: chatul nu mai apare pe site-urile care o folosesc.", "Ключ отключён: на сайтах с этим ключом чат больше не показывается."},

		"agent.settings":      {"Settings", "Setări", "Настройки"},
		"agent.greeting":      {"Greeting", "Mesaj de întâmpinare", "Приветствие"},
		"agent.greetinghint":  {"The first message of every new chat.", "Primul mesaj al fiecărei conversații noi.", "Первое сообщение каждого нового чата."},
		"agent.color":         {"Colour", "Culoare", "Цвет"},
		"agent.colortext":     {"Or type a hex code (#rgb or #rrggbb); it wins over the picker", "Sau scrieți un cod hex (#rgb sau #rrggbb); are prioritate față de selector", "Или введите шестнадцатеричный код (#rgb или #rrggbb); он важнее палитры"},
		"agent.position":      {"Position", "Poziție", "Положение"},
		"agent.pos.right":     {"Bottom right", "Dreapta jos", "Справа внизу"},
		"agent.pos.left":      {"Bottom left", "Stânga jos", "Слева внизу"},
		"agent.lang":          {"Language", "Limba", "Язык"},
		"agent.langauto":      {"The visitor's language", "Limba vizitatorului", "Язык посетителя"},
		"agent.launcher":      {"Launcher text", "Textul de lângă buton", "Текст у кнопки"},
		"agent.launcherhint":  {"Shown beside the chat button; at most 40 characters.", "Afișat lângă butonul de chat; cel mult 40 de caractere.", "Показывается рядом с кнопкой чата; не более 40 символов."},
		"agent.quick":         {"Quick replies", "Răspunsuri rapide", "Быстрые ответы"},
		"agent.quickhint":     {"One per line, at most 6: buttons offered at the start of a chat.", "Câte unul pe rând, cel mult 6: butoane oferite la începutul conversației.", "По одному в строке, не больше 6: кнопки в начале чата."},
		"agent.handoff":       {"Handoff to a human", "Transfer către un om", "Передача человеку"},
		"agent.handoffon":     {"Offer “Talk to a human” and hand conversations to the team", "Oferă „Vorbește cu un om” și transferă conversațiile echipei", "Предлагать «Поговорить с человеком» и передавать разговоры команде"},
		"agent.handoffmsg":    {"Message once a person has been asked (all languages)", "Mesajul după ce a fost chemat un om (toate limbile)", "Сообщение после вызова сотрудника (все языки)"},
		"agent.handoffmsgin":  {"Message (%s)", "Mesaj (%s)", "Сообщение (%s)"},
		"agent.handoffhint":   {"Leave empty for Parley's built-in message. A language's own text wins over the text for all languages.", "Lăsați gol pentru mesajul implicit Parley. Textul unei limbi are prioritate față de cel pentru toate limbile.", "Оставьте пустым для встроенного сообщения Parley. Текст для конкретного языка важнее общего."},
		"agent.ai":            {"AI", "AI", "ИИ"},
		"agent.instructions":  {"Instructions", "Instrucțiuni", "Инструкции"},
		"agent.instrhint":     {"What the AI should know and how it should answer, when the agent is backed by an LLM. Never shown to visitors.", "Ce trebuie să știe AI-ul și cum să răspundă, când agentul folosește un LLM. Nu sunt arătate vizitatorilor.", "Что ИИ должен знать и как отвечать, когда агент работает через LLM. Посетителям не показывается."},
		"agent.llmhint":       {"LLM override: leave empty to use this instance's AI settings.", "Alt LLM: lăsați gol pentru a folosi setările AI ale acestei instanțe.", "Своя LLM: оставьте пустым, чтобы использовать настройки ИИ этого сервера."},
		"agent.provider":      {"Provider", "Furnizor", "Провайдер"},
		"agent.baseurl":       {"API base URL", "URL-ul de bază al API-ului", "Базовый URL API"},
		"agent.model":         {"Model", "Model", "Модель"},
		"agent.apikey":        {"API key", "Cheie API", "Ключ API"},
		"agent.keyset":        {"A key is set. Leave the field empty to keep it.", "O cheie este setată. Lăsați câmpul gol pentru a o păstra.", "Ключ задан. Оставьте поле пустым, чтобы сохранить его."},
		"agent.keyunset":      {"No key is set.", "Nu este setată nicio cheie.", "Ключ не задан."},
		"agent.clearkey":      {"Remove the stored key", "Șterge cheia salvată", "Удалить сохранённый ключ"},
		"agent.name.invalid":  {"The chatbot name must be 1 to 100 characters.", "Numele chatbotului trebuie să aibă între 1 și 100 de caractere.", "Имя чат-бота должно содержать от 1 до 100 символов."},
		"agent.color.invalid": {"The colour must be a hex code such as #2563eb or #26e.", "Culoarea trebuie să fie un cod hex, de exemplu #2563eb sau #26e.", "Цвет должен быть шестнадцатеричным кодом, например #2563eb или #26e."},
		"agent.text.long":     {"The greeting and the handoff messages are at most 1000 characters, the launcher text at most 40.", "Mesajul de întâmpinare și mesajele de transfer au cel mult 1000 de caractere, textul de lângă buton cel mult 40.", "Приветствие и сообщения о передаче — не более 1000 символов, текст у кнопки — не более 40."},
		"agent.quick.invalid": {"Give at most 6 quick replies of up to 100 characters each.", "Introduceți cel mult 6 răspunsuri rapide, fiecare de cel mult 100 de caractere.", "Укажите не больше 6 быстрых ответов, каждый не длиннее 100 символов."},
		"agent.instr.long":    {"The instructions are at most 20000 characters.", "Instrucțiunile au cel mult 20000 de caractere.", "Инструкции — не более 20000 символов."},
		"agent.llm.invalid":   {"The base URL must be an http:// or https:// address; provider, base URL, model and API key are at most 1000 characters.", "URL-ul de bază trebuie să fie o adresă http:// sau https://; furnizorul, URL-ul de bază, modelul și cheia API au cel mult 1000 de caractere.", "Базовый URL должен начинаться с http:// или https://; провайдер, базовый URL, модель и ключ API — не более 1000 символов."},

		"kb.title":       {"Knowledge", "Cunoștințe", "База знаний"},
		"kb.hint":        {"The agent answers visitors from these questions and answers and documents. Changes apply within seconds.", "Agentul le răspunde vizitatorilor pe baza acestor întrebări, răspunsuri și documente. Modificările se aplică în câteva secunde.", "Агент отвечает посетителям по этим вопросам, ответам и документам. Изменения вступают в силу в течение нескольких секунд."},
		"kb.empty":       {"No knowledge yet.", "Încă nu există cunoștințe.", "База знаний пока пуста."},
		"kb.qa":          {"Question and answer", "Întrebare și răspuns", "Вопрос и ответ"},
		"kb.document":    {"Document", "Document", "Документ"},
		"kb.question":    {"Question", "Întrebare", "Вопрос"},
		"kb.answer":      {"Answer", "Răspuns", "Ответ"},
		"kb.doctitle":    {"Title", "Titlu", "Заголовок"},
		"kb.text":        {"Text (plain text or Markdown)", "Text (simplu sau Markdown)", "Текст (обычный или Markdown)"},
		"kb.file":        {"Or upload a file (.txt or .md, at most 1 MiB)", "Sau încărcați un fișier (.txt sau .md, cel mult 1 MiB)", "Или загрузите файл (.txt или .md, не больше 1 МиБ)"},
		"kb.filehint":    {"Paste a text or choose a file, not both. Without a title, the file's name is used.", "Lipiți un text sau alegeți un fișier, nu ambele. Fără titlu se folosește numele fișierului.", "Вставьте текст или выберите файл, но не то и другое. Без заголовка используется имя файла."},
		"kb.lang":        {"Language", "Limba", "Язык"},
		"kb.anylang":     {"All languages", "Toate limbile", "Все языки"},
		"kb.untitled":    {"Untitled document", "Document fără titlu", "Документ без заголовка"},
		"kb.edit":        {"Edit", "Editează", "Изменить"},
		"kb.delete":      {"Delete", "Șterge", "Удалить"},
		"kb.addqa":       {"Add a question and answer", "Adăugați o întrebare și un răspuns", "Добавить вопрос и ответ"},
		"kb.adddoc":      {"Add a document", "Adăugați un document", "Добавить документ"},
		"kb.add":         {"Add", "Adaugă", "Добавить"},
		"kb.added":       {"Added to the knowledge.", "Adăugat la cunoștințe.", "Добавлено в базу знаний."},
		"kb.saved":       {"Knowledge item saved.", "Elementul a fost salvat.", "Запись сохранена."},
		"kb.deleted":     {"Knowledge item deleted.", "Elementul a fost șters.", "Запись удалена."},
		"kb.qa.missing":  {"A question-and-answer entry needs a question and an answer.", "O intrare de tip întrebare-răspuns are nevoie de o întrebare și de un răspuns.", "Для записи «вопрос — ответ» нужны и вопрос, и ответ."},
		"kb.qa.long":     {"Questions and answers are at most 10000 characters each.", "Întrebările și răspunsurile au cel mult 10000 de caractere fiecare.", "Вопросы и ответы — не более 10000 символов каждый."},
		"kb.doc.missing": {"A document needs a text: paste it or choose a file.", "Un document are nevoie de un text: lipiți-l sau alegeți un fișier.", "Документу нужен текст: вставьте его или выберите файл."},
		"kb.doc.long":    {"A document's title is at most 200 characters and its text at most 200000.", "Titlul unui document are cel mult 200 de caractere, iar textul cel mult 200000.", "Заголовок документа — не более 200 символов, текст — не более 200000."},
		"kb.doc.both":    {"Paste a text or choose a file, not both.", "Lipiți un text sau alegeți un fișier, nu ambele.", "Вставьте текст или выберите файл, но не то и другое."},
		"kb.doc.utf8":    {"The file must be UTF-8 plain text or Markdown.", "Fișierul trebuie să fie text simplu sau Markdown în UTF-8.", "Файл должен быть обычным текстом или Markdown в UTF-8."},
		"kb.doc.large":   {"The file is larger than 1 MiB.", "Fișierul este mai mare de 1 MiB.", "Файл больше 1 МиБ."},

		"preview.title": {"Live preview", "Previzualizare live", "Предпросмотр"},
		"preview.hint": {"The chat button in the corner of this page is this agent's widget. It chats for real: conversations started here appear in the inbox and count towards the monthly allowance. The widget takes the agent's colour, texts and greeting when a conversation starts, so saved changes show from the next new conversation.",
			"Butonul de chat din colțul acestei pagini este widgetul acestui agent. Conversațiile sunt reale: cele începute aici apar în lista de conversații și se socotesc în limita lunară. Widgetul preia culoarea, textele și mesajul de întâmpinare ale agentului la începutul unei conversații, deci modificările salvate se văd de la următoarea conversație nouă.",
			"Кнопка чата в углу этой страницы — виджет этого агента. Чат настоящий: начатые здесь разговоры появляются во входящих и учитываются в месячном лимите. Цвет, тексты и приветствие виджет берёт у агента в начале разговора, поэтому сохранённые изменения видны со следующего нового разговора."},
		"preview.nokey": {"The preview needs an active key.", "Previzualizarea are nevoie de o cheie activă.", "Для предпросмотра нужен активный ключ."},
	})
}

// Limits of the agent forms. Knowledge items follow the management API's
// rules (domain.CheckKnowledge), so an item saved here can also be sent
// there and the other way round.
const (
	maxChatbotName     = 100
	maxKnowledgeUpload = 1 << 20

	// Config values. The API refuses none (it keeps a config as sent), but
	// a form should not accept what the widget cuts off, nor texts too
	// long to be meant.
	maxGreeting     = 1000 // also each handoff message
	maxLauncherText = 40   // the widget shows no more
	maxQuickReplies = 6    // the widget shows no more
	maxQuickReply   = 100  // a button, sent as the visitor's message
	maxInstructions = 20000
	maxLLMField     = 1000 // provider, base URL, model, API key (some keys are long tokens)

	// Request bodies: small forms; the settings (long instructions,
	// URL-encoded); knowledge, where a document's 200,000 characters can
	// take 2.4 MB URL-encoded and an upload carries a file of 1 MiB too.
	maxSmallForm     = 64 << 10
	maxSettingsForm  = 1 << 20
	maxKnowledgeForm = 4 << 20

	defaultColor = "#2563eb" // the widget's colour when none is set
)

// hexColor is what the widget accepts as a colour (web/widget/loader.js):
// anything else falls back to its default, so the form refuses it.
var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// agentsData is the agents list.
type agentsData struct {
	Rows []agentRow
	Name string // the create form, as typed
}

type agentRow struct {
	domain.Agent
	Key string // newest active key, "" when none
}

// Agents lists the account's agents with a form to create one.
func (d *Dashboard) Agents(w http.ResponseWriter, r *http.Request) {
	d.showAgents(w, r, http.StatusOK, agentsData{}, "")
}

func (d *Dashboard) showAgents(w http.ResponseWriter, r *http.Request, status int, data agentsData, errKey string) {
	u := user(r)
	agents, err := d.Store.Agents(r.Context(), u.AccountID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	for _, a := range agents {
		keys, err := d.Store.Keys(r.Context(), u.AccountID, a.ID)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.Rows = append(data.Rows, agentRow{Agent: a, Key: newestActive(keys)})
	}
	d.render(w, r, status, "agents", view{Title: "agents.title", Nav: "agents", Error: errKey, Data: data})
}

// CreateAgent creates an agent with its first widget key and lands on its
// page at the embed code, which is what the owner came for.
func (d *Dashboard) CreateAgent(w http.ResponseWriter, r *http.Request) {
	if status, key := readAgentForm(w, r, maxSmallForm); key != "" {
		d.showAgents(w, r, status, agentsData{}, key)
		return
	}
	name := r.PostFormValue("name")
	n, ok := chatbotName(name)
	if !ok {
		d.showAgents(w, r, http.StatusBadRequest, agentsData{Name: name}, "agent.name.invalid")
		return
	}
	ag, err := d.Store.CreateAgent(r.Context(), store.NewAgent{AccountID: user(r).AccountID, ChatbotName: n, Key: secret.WidgetKey(), MaxAgents: d.Bounds.MaxAgents})
	if key := limitKey(err); key != "" {
		d.showAgents(w, r, http.StatusForbidden, agentsData{Name: name}, key)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=agent.created#embed", http.StatusSeeOther)
}

// chatbotName applies the management API's rule: trimmed, 1 to 100
// characters.
func chatbotName(s string) (string, bool) {
	s = strings.TrimSpace(s)
	return s, s != "" && withinChars(s, maxChatbotName)
}

// withinChars reports whether s has at most n characters (code points,
// as the API counts them).
func withinChars(s string, n int) bool { return utf8.RuneCountInString(s) <= n }

// agentData is the agent page. The drafts hold what was typed into a form
// that failed, so the page shows it again.
type agentData struct {
	Agent     domain.Agent
	Keys      []domain.WidgetKey
	Key       string // the newest active key: the one to embed and preview
	Embed     string // the snippet
	Settings  settingsForm
	Knowledge []domain.KnowledgeEntry // with a failed edit's draft in place
	EditID    string                  // the item whose edit form failed
	QA, Doc   domain.KnowledgeEntry   // the add forms
	Usage     *kbUsage                // the knowledge against its bounds

	Refused *refusedEndpoint // the LLM endpoint the settings form named leads to a refused address

	settingsTyped bool // Settings comes from the request, not the config
	edit          *domain.KnowledgeEntry
}

// agent loads one of the signed-in user's account's agents; another
// account's is domain.ErrNotFound, like a missing one.
func (d *Dashboard) agent(r *http.Request) (domain.Agent, error) {
	return d.Store.Agent(r.Context(), user(r).AccountID, r.PathValue("id"))
}

// Agent shows an agent: embed code and keys, settings, knowledge and the
// live preview.
func (d *Dashboard) Agent(w http.ResponseWriter, r *http.Request) {
	d.showAgent(w, r, http.StatusOK, agentData{}, "")
}

func (d *Dashboard) showAgent(w http.ResponseWriter, r *http.Request, status int, data agentData, errKey string) {
	ag, err := d.agent(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Keys, err = d.Store.Keys(r.Context(), ag.AccountID, ag.ID); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Knowledge, err = d.Store.Knowledge(r.Context(), ag.ID); err != nil {
		d.fail(w, r, err)
		return
	}
	data.Usage = usageOf(data.Knowledge, d.Bounds.Knowledge, language(r))
	if data.edit != nil {
		for i, e := range data.Knowledge {
			if e.ID == data.edit.ID {
				data.Knowledge[i] = *data.edit
				data.EditID = e.ID
			}
		}
	}
	data.Agent = ag
	data.Key = newestActive(data.Keys)
	if data.Key != "" {
		data.Embed = `<script async src="` + d.widgetBase(r) + `/widget.js" data-key="` + data.Key + `"></script>`
	}
	if !data.settingsTyped {
		data.Settings = settingsOf(ag)
	}
	data.Settings.Limits.Defaults = d.limitDefaults()
	d.render(w, r, status, "agent", view{Title: "agent.title", Nav: "agents", Error: errKey, Data: data})
}

// baseURL is where sites load the widget from: the configured public URL,
// else this request's scheme and host. Behind a TLS-terminating proxy the
// scheme comes from X-Forwarded-Proto; trusting it is harmless here, as the
// snippet is only shown to the owner who sent the request (set
// PARLEY_BASE_URL for anything else).
func (d *Dashboard) widgetBase(r *http.Request) string {
	if d.BaseURL != "" {
		return strings.TrimRight(d.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// newestActive is the key to embed: the store lists keys oldest first,
// and after a rotation the newest is the one sites should switch to.
func newestActive(keys []domain.WidgetKey) string {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i].Active {
			return keys[i].Key
		}
	}
	return ""
}

// settingsForm is the settings form's fields, read from an agent's config
// or from a submitted form. The LLM API key is not among them: it is never
// shown, only whether one is set.
type settingsForm struct {
	Name         string
	Greeting     string
	Color        string // the picker: always #rrggbb
	ColorText    string // typed hex code; wins over the picker
	Position     string // "right" or "left"
	Lang         string // "", "en", "ro" or "ru"
	LauncherText string
	QuickReplies string // one per line
	Handoff      bool
	HandoffMsg   string            // for every language
	HandoffLang  map[string]string // per language
	Instructions string
	Provider     string
	BaseURL      string
	Model        string
	KeySet       bool // an LLM API key is stored
	Limits       limitsForm
}

// configObject is a JSON object whose members are kept as they are, so keys
// the dashboard does not edit survive a save (the API documents that
// Parley keeps any keys it does not read).
type configObject map[string]json.RawMessage

func decodeConfigObject(raw json.RawMessage) configObject {
	var o configObject
	if json.Unmarshal(raw, &o) != nil || o == nil {
		return configObject{}
	}
	return o
}

// str reads a string member; values of another type read as "", as the
// widget and the chat ignore them too.
func (o configObject) str(k string) string {
	var s string
	_ = json.Unmarshal(o[k], &s)
	return s
}

// setStr stores a string member, or removes it when empty (the default).
func (o configObject) setStr(k, v string) {
	if v == "" {
		delete(o, k)
		return
	}
	o[k], _ = json.Marshal(v) // a string always encodes
}

func settingsOf(ag domain.Agent) settingsForm {
	c := decodeConfigObject(ag.Config)
	f := settingsForm{
		Name: ag.ChatbotName, Greeting: c.str("greeting"), Position: "right", Lang: c.str("lang"),
		LauncherText: c.str("launcher_text"), Instructions: c.str("instructions"), Color: defaultColor, Handoff: true,
	}
	if col := c.str("color"); hexColor.MatchString(col) {
		if len(col) == 7 {
			f.Color = strings.ToLower(col) // type=color only takes lower case #rrggbb
		} else {
			f.ColorText = col
		}
	}
	if c.str("position") == "left" {
		f.Position = "left"
	}
	var quick []string
	_ = json.Unmarshal(c["quick_replies"], &quick)
	f.QuickReplies = strings.Join(quick, "\n")
	h := decodeConfigObject(c["handoff"])
	var on bool
	if json.Unmarshal(h["enabled"], &on) == nil {
		f.Handoff = on
	}
	f.HandoffMsg = h.str("message")
	if perLang := decodeConfigObject(h["message"]); len(perLang) > 0 {
		f.HandoffMsg = perLang.str("")
		f.HandoffLang = map[string]string{}
		for _, l := range languages {
			f.HandoffLang[l] = perLang.str(l)
		}
	}
	llm := decodeConfigObject(c["llm"])
	f.Provider, f.BaseURL, f.Model = llm.str("provider"), llm.str("base_url"), llm.str("model")
	_, f.KeySet = llm["api_key"]
	f.Limits = limitsOf(c)
	return f
}

// settingsFrom reads the submitted settings form, trimmed.
func settingsFrom(r *http.Request) settingsForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	f := settingsForm{
		Name: v("name"), Greeting: v("greeting"), Color: strings.ToLower(v("color")), ColorText: v("color_text"),
		Position: v("position"), Lang: v("lang"), LauncherText: v("launcher_text"), QuickReplies: v("quick_replies"),
		Handoff: r.PostFormValue("handoff") != "", HandoffMsg: v("handoff_message"), HandoffLang: map[string]string{},
		Instructions: v("instructions"), Provider: v("provider"), BaseURL: v("base_url"), Model: v("model"),
	}
	for _, l := range languages {
		f.HandoffLang[l] = v("handoff_message_" + l)
	}
	f.Limits = limitsFrom(r)
	return f
}

// config checks the form and lays it over the previous config: keys the
// form does not edit are kept, and so is the stored LLM API key unless a
// new one is typed (apiKey) or clearKey asks to remove it. It returns a
// message key when the form is invalid.
func (f settingsForm) config(prev json.RawMessage, apiKey string, clearKey bool) (json.RawMessage, string) {
	long := func(s string, n int) bool { return !withinChars(s, n) }
	c := decodeConfigObject(prev)
	switch {
	case long(f.Greeting, maxGreeting), long(f.LauncherText, maxLauncherText), long(f.HandoffMsg, maxGreeting):
		return nil, "agent.text.long"
	case long(f.Instructions, maxInstructions):
		return nil, "agent.instr.long"
	case f.Position != "right" && f.Position != "left", f.Lang != "" && !known(f.Lang):
		return nil, "agent.invalid" // only a tampered form sends these
	}
	c.setStr("greeting", f.Greeting)
	c.setStr("launcher_text", f.LauncherText)
	c.setStr("position", f.Position)
	c.setStr("lang", f.Lang)
	c.setStr("instructions", f.Instructions)

	switch color := f.Color; {
	case f.ColorText != "":
		if !hexColor.MatchString(f.ColorText) {
			return nil, "agent.color.invalid"
		}
		c.setStr("color", f.ColorText)
	case !hexColor.MatchString(color) || len(color) != 7:
		return nil, "agent.color.invalid"
	case color == defaultColor && c["color"] == nil:
		// The picker always sends a colour; the default one untouched is
		// not a choice worth writing into the config.
	default:
		c.setStr("color", color)
	}

	quick := []string{}
	for _, line := range strings.Split(f.QuickReplies, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			quick = append(quick, line)
		}
	}
	if len(quick) > maxQuickReplies {
		return nil, "agent.quick.invalid"
	}
	for _, q := range quick {
		if long(q, maxQuickReply) {
			return nil, "agent.quick.invalid"
		}
	}
	if len(quick) == 0 {
		delete(c, "quick_replies")
	} else {
		c["quick_replies"], _ = json.Marshal(quick)
	}

	// handoff: "enabled" always written, so turning it off is explicit;
	// per-language messages as an object where languages without their own
	// text get the one for all languages, else a single text.
	h := decodeConfigObject(c["handoff"])
	h["enabled"], _ = json.Marshal(f.Handoff)
	perLang := map[string]string{}
	for l, m := range f.HandoffLang {
		if long(m, maxGreeting) {
			return nil, "agent.text.long"
		}
		if m != "" {
			perLang[l] = m
		}
	}
	switch {
	case len(perLang) > 0:
		for _, l := range languages {
			if perLang[l] == "" && f.HandoffMsg != "" {
				perLang[l] = f.HandoffMsg
			}
		}
		h["message"], _ = json.Marshal(perLang)
	default:
		h.setStr("message", f.HandoffMsg)
	}
	c["handoff"], _ = json.Marshal(h)

	llm := decodeConfigObject(c["llm"])
	if long(f.Provider, maxLLMField) || long(f.Model, maxLLMField) || long(apiKey, maxLLMField) || long(f.BaseURL, maxLLMField) {
		return nil, "agent.llm.invalid"
	}
	if f.BaseURL != "" {
		u, err := url.Parse(f.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, "agent.llm.invalid"
		}
	}
	llm.setStr("provider", f.Provider)
	llm.setStr("base_url", f.BaseURL)
	llm.setStr("model", f.Model)
	delete(llm, "api_key_set") // the API's read-only marker, never stored
	switch {
	case apiKey != "":
		llm.setStr("api_key", apiKey)
	case clearKey:
		delete(llm, "api_key")
	}
	if len(llm) == 0 {
		delete(c, "llm")
	} else {
		c["llm"], _ = json.Marshal(llm)
	}
	if key := f.Limits.apply(c); key != "" {
		return nil, key
	}
	out, _ := json.Marshal(c) // re-encoding decoded JSON cannot fail
	return out, ""
}

// UpdateAgent saves the settings form: the name and the config.
func (d *Dashboard) UpdateAgent(w http.ResponseWriter, r *http.Request) {
	ag, err := d.agent(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if status, key := readAgentForm(w, r, maxSettingsForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	f := settingsFrom(r)
	f.KeySet = settingsOf(ag).KeySet
	invalid := func(key string) {
		d.showAgent(w, r, http.StatusBadRequest, agentData{Settings: f, settingsTyped: true}, key)
	}
	name, ok := chatbotName(f.Name)
	if !ok {
		invalid("agent.name.invalid")
		return
	}
	cfg, key := f.config(ag.Config, strings.TrimSpace(r.PostFormValue("api_key")), r.PostFormValue("clear_key") != "")
	if key != "" {
		invalid(key)
		return
	}
	if refused, key := d.checkEndpoint(r, cfg); key != "" || refused != nil {
		d.showAgent(w, r, http.StatusBadRequest, agentData{Settings: f, settingsTyped: true, Refused: refused}, key)
		return
	}
	if _, err := d.Store.UpdateAgent(r.Context(), ag.AccountID, ag.ID, store.AgentPatch{ChatbotName: &name, Config: cfg}); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=agent.saved#settings", http.StatusSeeOther)
}

// agentKeys loads the request's agent and its widget keys.
func (d *Dashboard) agentKeys(r *http.Request) (domain.Agent, []domain.WidgetKey, error) {
	ag, err := d.agent(r)
	if err != nil {
		return domain.Agent{}, nil, err
	}
	keys, err := d.Store.Keys(r.Context(), ag.AccountID, ag.ID)
	return ag, keys, err
}

// RotateKey creates a new widget key and deactivates the older active
// ones: the usual reason to rotate is a key that should stop working. An
// owner who needs both for a while activates the old one again.
func (d *Dashboard) RotateKey(w http.ResponseWriter, r *http.Request) {
	ag, old, err := d.agentKeys(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	// The new key first, so the agent is never left without an active one.
	if _, err := d.Store.CreateKey(r.Context(), ag.AccountID, ag.ID, secret.WidgetKey()); err != nil {
		d.fail(w, r, err)
		return
	}
	for _, k := range old {
		if k.Active {
			if _, err := d.Store.SetKeyActive(r.Context(), ag.AccountID, k.Key, false); err != nil {
				d.fail(w, r, err)
				return
			}
		}
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=embed.rotated#embed", http.StatusSeeOther)
}

// SetKeyActive activates or deactivates one of the agent's keys
// (active=true|false).
func (d *Dashboard) SetKeyActive(w http.ResponseWriter, r *http.Request) {
	ag, keys, err := d.agentKeys(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	// The key must be this agent's: the store only checks the account.
	if !slices.ContainsFunc(keys, func(k domain.WidgetKey) bool { return k.Key == r.PathValue("key") }) {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	if status, key := readAgentForm(w, r, maxSmallForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	var active bool
	switch r.PostFormValue("active") {
	case "true":
		active = true
	case "false":
	default:
		d.showAgent(w, r, http.StatusBadRequest, agentData{}, "agent.invalid")
		return
	}
	if _, err := d.Store.SetKeyActive(r.Context(), ag.AccountID, r.PathValue("key"), active); err != nil {
		d.fail(w, r, err)
		return
	}
	flash := "embed.deactivated"
	if active {
		flash = "embed.activated"
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash="+flash+"#embed", http.StatusSeeOther)
}

// AddKnowledge adds a question and answer (kind=qa) or a document
// (kind=document), pasted or uploaded as a file.
func (d *Dashboard) AddKnowledge(w http.ResponseWriter, r *http.Request) {
	ag, err := d.agent(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if status, key := readAgentForm(w, r, maxKnowledgeForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	e := domain.KnowledgeEntry{Kind: r.PostFormValue("kind"), Lang: r.PostFormValue("lang")}
	data := agentData{}
	status, key := http.StatusBadRequest, ""
	switch e.Kind {
	case domain.KindDocument:
		e.Title, e.Text = r.PostFormValue("title"), r.PostFormValue("text")
		data.Doc = e // the draft: what was typed, not the file
		if code, k := uploadedDocument(r, &e); k != "" {
			status, key = code, k
		}
	default:
		e.Kind = domain.KindQA
		e.Question, e.Answer = r.PostFormValue("question"), r.PostFormValue("answer")
		data.QA = e
	}
	if key == "" {
		e, key = checkKnowledge(e)
	}
	if key != "" {
		d.showAgent(w, r, status, data, key)
		return
	}
	if _, err := d.Store.AddKnowledge(r.Context(), ag.AccountID, ag.ID, e, d.Bounds.Knowledge); limitKey(err) != "" {
		d.showAgent(w, r, http.StatusRequestEntityTooLarge, data, limitKey(err))
		return
	} else if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Invalidate(ag.ID)
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=kb.added#knowledge", http.StatusSeeOther)
}

// uploadedDocument puts an uploaded file's text into the document e, if a
// file was chosen. It returns a status and message key when the file is
// refused.
func uploadedDocument(r *http.Request, e *domain.KnowledgeEntry) (int, string) {
	if r.MultipartForm == nil {
		return 0, ""
	}
	f, hdr, err := r.FormFile("file")
	if errors.Is(err, http.ErrMissingFile) {
		return 0, "" // an empty file input sends no file
	}
	if err != nil {
		return http.StatusBadRequest, "agent.invalid"
	}
	defer f.Close()
	if strings.TrimSpace(e.Text) != "" {
		return http.StatusBadRequest, "kb.doc.both"
	}
	body, err := io.ReadAll(io.LimitReader(f, maxKnowledgeUpload+1))
	switch {
	case err != nil:
		return http.StatusBadRequest, "agent.invalid"
	case len(body) > maxKnowledgeUpload:
		return http.StatusRequestEntityTooLarge, "kb.doc.large"
	case !utf8.Valid(body):
		return http.StatusBadRequest, "kb.doc.utf8"
	}
	e.Text = string(body)
	if strings.TrimSpace(e.Title) == "" {
		e.Title = strings.TrimSuffix(strings.TrimSuffix(hdr.Filename, ".md"), ".txt")
	}
	return 0, ""
}

// UpdateKnowledge edits one item; its kind stays.
func (d *Dashboard) UpdateKnowledge(w http.ResponseWriter, r *http.Request) {
	ag, e, err := d.knowledgeItem(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if status, key := readAgentForm(w, r, maxKnowledgeForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	e.Lang = r.PostFormValue("lang")
	if e.IsDocument() {
		e.Title, e.Text = r.PostFormValue("title"), r.PostFormValue("text")
	} else {
		e.Question, e.Answer = r.PostFormValue("question"), r.PostFormValue("answer")
	}
	checked, key := checkKnowledge(e)
	if key != "" {
		d.showAgent(w, r, http.StatusBadRequest, agentData{edit: &e}, key)
		return
	}
	checked.ID = e.ID
	if _, err := d.Store.UpdateKnowledge(r.Context(), ag.AccountID, ag.ID, checked, d.Bounds.Knowledge); limitKey(err) != "" {
		d.showAgent(w, r, http.StatusRequestEntityTooLarge, agentData{edit: &e}, limitKey(err))
		return
	} else if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Invalidate(ag.ID)
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=kb.saved#kb-"+e.ID, http.StatusSeeOther)
}

func (d *Dashboard) DeleteKnowledge(w http.ResponseWriter, r *http.Request) {
	ag, e, err := d.knowledgeItem(r)
	if err == nil {
		err = d.Store.DeleteKnowledge(r.Context(), ag.AccountID, ag.ID, e.ID)
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Invalidate(ag.ID)
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=kb.deleted#knowledge", http.StatusSeeOther)
}

// knowledgeItem finds the item {item} of the account's agent {id}.
func (d *Dashboard) knowledgeItem(r *http.Request) (domain.Agent, domain.KnowledgeEntry, error) {
	ag, err := d.agent(r)
	if err != nil {
		return ag, domain.KnowledgeEntry{}, err
	}
	entries, err := d.Store.Knowledge(r.Context(), ag.ID)
	if err != nil {
		return ag, domain.KnowledgeEntry{}, err
	}
	for _, e := range entries {
		if e.ID == r.PathValue("item") {
			return ag, e, nil
		}
	}
	return ag, domain.KnowledgeEntry{}, domain.ErrNotFound
}

// checkKnowledge applies domain.CheckKnowledge, the management API's
// rules, and answers with the message key to show instead of the API's
// English text. Fields a form cannot mix up (kind, language: selects) fail
// only for a tampered form, with the generic message.
func checkKnowledge(e domain.KnowledgeEntry) (domain.KnowledgeEntry, string) {
	e, err := domain.CheckKnowledge(e)
	var ke *domain.KnowledgeError
	switch {
	case err == nil:
		return e, ""
	case !errors.As(err, &ke):
		return e, "agent.invalid"
	}
	if key, ok := knowledgeMessage[ke.Problem]; ok {
		return e, key
	}
	return e, "agent.invalid"
}

// knowledgeMessage maps the problems a visitor of the form can cause to
// message keys.
var knowledgeMessage = map[domain.KnowledgeProblem]string{
	domain.KnowledgeQAMissing:  "kb.qa.missing",
	domain.KnowledgeQALong:     "kb.qa.long",
	domain.KnowledgeDocMissing: "kb.doc.missing",
	domain.KnowledgeDocLong:    "kb.doc.long",
	domain.KnowledgeNotUTF8:    "kb.doc.utf8",
	domain.KnowledgeNUL:        "kb.doc.utf8",
}

// readAgentForm parses a POST form (URL-encoded or multipart) of at most limit
// bytes. On failure it returns the status and message key to show.
func readAgentForm(w http.ResponseWriter, r *http.Request, limit int64) (int, string) {
	r.Body = http.MaxBytesReader(w, unbound(r.Body), limit)
	var err error
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		// Parts beyond this stay in temporary files, which net/http
		// removes when the handler returns.
		err = r.ParseMultipartForm(maxKnowledgeUpload)
	} else {
		err = r.ParseForm()
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, "agent.toolarge"
	case err != nil:
		return http.StatusBadRequest, "agent.invalid"
	}
	return 0, ""
}
