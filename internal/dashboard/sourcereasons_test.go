package dashboard

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/internal/crawler"
	"parley/internal/domain"
	"parley/internal/sources"
	"parley/internal/store"
	"parley/web/i18n"
)

// getIn is a page as the dashboard shows it in lang.
func (e *agEnv) getIn(lang, path string) agResp {
	e.t.Helper()
	r := httptest.NewRequest("GET", "http://example.com"+path, nil)
	r.AddCookie(&http.Cookie{Name: langCookie, Value: lang})
	return e.send(e.session, r)
}

// Every reason a sync records has a sentence in every language that
// takes exactly its values.
func TestSourceReasonsAreWorded(t *testing.T) {
	t.Parallel()
	for code, kinds := range sources.Reasons {
		args := make([]any, len(kinds))
		for i := range args {
			args[i] = fmt.Sprintf("«value %d»", i)
		}
		for _, lang := range i18n.Languages {
			key := "sources.reason." + code
			text := T(lang, key)
			if text == key {
				t.Errorf("%s: no %q", lang, key)
				continue
			}
			if got := fmt.Sprintf(text, args...); strings.Contains(got, "%!") {
				t.Errorf("%s: %q takes other values than its %d: %s", lang, key, len(kinds), got)
			}
		}
	}
}

// A failed sync and a ready sync's note are said in the owner's language
// from their reasons, on the agent's page, in the list it polls and on
// the source's page; without reasons it knows, the stored English shows,
// marked as English.
func TestDashboardSourceReasons(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	base := "/agents/" + a.ID
	ctx := context.Background()
	src, err := e.d.Sources.Create(ctx, e.owner.AccountID, a.ID, sources.NewSource{Kind: "website", URL: "https://93.184.215.14/"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 4, 10, 30, 0, 0, time.UTC)
	fail := func(text string, why ...domain.Reason) {
		t.Helper()
		if err := e.st.FailSourceSync(ctx, src.ID, store.SourceFailure{At: at, Error: text, Reasons: why}); err != nil {
			t.Fatal(err)
		}
	}
	esc := func(s string) string { return template.HTMLEscapeString(s) }

	fail("the site could not be read: the site answered 404 for https://93.184.215.14/",
		domain.Reason{Code: crawler.CodeStatus, Args: []string{"https://93.184.215.14/", "404"}})
	for _, tc := range []struct{ lang, failed, want string }{
		{"ro", "Ultima sincronizare a eșuat:", "Site-ul a răspuns cu eroarea 404 pentru https://93.184.215.14/."},
		{"ru", "Последняя синхронизация не удалась:", "Сайт ответил ошибкой 404 на запрос https://93.184.215.14/."},
		{"en", "The last sync failed:", "The site answered with the error 404 for https://93.184.215.14/."},
	} {
		want := `<p class="error">` + tc.failed + ` <span>` + esc(tc.want) + `</span></p>`
		agMustContain(t, tc.lang+" agent page", e.getIn(tc.lang, base).body, want)
		agMustContain(t, tc.lang+" polled list", e.getIn(tc.lang, base+"/sources").body, want)
		agMustContain(t, tc.lang+" source page", e.getIn(tc.lang, base+"/sources/"+src.ID).body, want)
	}
	// The API's words are unchanged.
	if got, _ := e.d.Sources.Get(ctx, e.owner.AccountID, a.ID, src.ID); got.Error != "the site could not be read: the site answered 404 for https://93.184.215.14/" {
		t.Fatalf("the stored error changed: %q", got.Error)
	}

	// A refused address: its kind in words, as the add form says it.
	fail("the site could not be read: refused: shop.test resolves to 10.0.0.7, a private address; …",
		domain.Reason{Code: crawler.CodeRefused, Args: []string{"shop.test (10.0.0.7)", "private"}})
	agMustContain(t, "ru refusal", e.getIn("ru", base).body, "<span>Адрес ведёт к shop.test (10.0.0.7), частный адрес. Этот сервер не читает частные адреса;")
	agMustContain(t, "ro refusal", e.getIn("ro", base).body, "<span>Adresa duce la shop.test (10.0.0.7), o adresă privată.")

	// Nothing readable: the parts in order, counts grouped.
	fail("no page with text was found (1234 fetched): 1234 pages or files had no text that could be read",
		domain.Reason{Code: sources.ReasonEmptyFetched, Args: []string{"1234"}}, domain.Reason{Code: sources.ReasonUnreadable, Args: []string{"1234"}})
	sep := T("ru", "number.thousands")
	agMustContain(t, "ru nothing readable", e.getIn("ru", base).body,
		"<span>Не найдено ни одной страницы с текстом (загружено страниц: 1"+sep+"234). Страниц или файлов без читаемого текста: 1"+sep+"234.</span>")

	// Reasons this dashboard cannot word: the stored English, marked.
	for _, why := range [][]domain.Reason{
		nil,                          // a row from before reasons were kept
		{{Code: "a_future_code"}},    // a newer code
		{{Code: crawler.CodeStatus}}, // its values missing
		{{Code: crawler.CodeRefused, Args: []string{"10.0.0.7", "martian"}}}, // a class not known
	} {
		fail("the site could not be read: something new", why...)
		agMustContain(t, fmt.Sprintf("ru fallback %v", why), e.getIn("ru", base).body,
			`Последняя синхронизация не удалась: <span lang="en">the site could not be read: something new</span>`)
	}

	// A ready sync's note.
	page := []domain.SourcePage{{URL: "https://93.184.215.14/", Title: "Home", Text: "Hello."}}
	note := []domain.Reason{{Code: sources.ReasonBound, Args: []string{"3", "1000000"}}, {Code: sources.ReasonCrawlTime}}
	if err := e.st.ReplaceSourcePages(ctx, src.ID, page, store.SourceSync{At: at, Note: "3 pages were left out: …", NoteReasons: note}); err != nil {
		t.Fatal(err)
	}
	agMustContain(t, "ru note", e.getIn("ru", base+"/sources/"+src.ID).body,
		`<p class="warning">Взято не всё: <span>Не вошло страниц: 3; источники агента вмещают всего 1`+sep+`000`+sep+`000 символов текста (PARLEY_SOURCES_MAX_CHARS). Синхронизация упёрлась в свой предел времени, не успев обойти весь сайт.</span></p>`)
	agMustContain(t, "ro note", e.getIn("ro", base).body,
		`<p class="warning">Nu a fost preluat totul: <span>Pagini omise: 3; sursele agentului pot conține în total 1.000.000 caractere de text`)
	agMustNotContain(t, "ro note", e.getIn("ro", base).body, "Ultima sincronizare a eșuat")
}
