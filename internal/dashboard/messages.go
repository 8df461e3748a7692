package dashboard

// messages holds every text of the dashboard in en, ro and ru. Pages add
// their own in init functions of their files (see add); TestMessages checks
// that every key has all three languages and that templates use no
// missing key.
var messages = map[string]map[string]string{}

func add(m map[string][3]string) {
	for k, v := range m {
		if _, dup := messages[k]; dup {
			panic("dashboard: message " + k + " defined twice")
		}
		messages[k] = map[string]string{"en": v[0], "ro": v[1], "ru": v[2]}
	}
}

func init() {
	add(map[string][3]string{
		"app.title":       {"Parley", "Parley", "Parley"},
		"nav.inbox":       {"Inbox", "Conversații", "Входящие"},
		"nav.agents":      {"Agents", "Agenți", "Агенты"},
		"nav.usage":       {"Usage", "Consum", "Использование"},
		"nav.team":        {"Team", "Echipă", "Команда"},
		"nav.password":    {"Change password", "Schimbă parola", "Сменить пароль"},
		"nav.signout":     {"Sign out", "Ieșire", "Выйти"},
		"nav.language":    {"Language", "Limba", "Язык"},
		"nav.main":        {"Main", "Principal", "Основное"},
		"lang.en":         {"English", "English", "English"},
		"lang.ro":         {"Română", "Română", "Română"},
		"lang.ru":         {"Русский", "Русский", "Русский"},
		"form.email":      {"Email", "Email", "Email"},
		"form.password":   {"Password", "Parolă", "Пароль"},
		"form.name":       {"Name", "Nume", "Имя"},
		"form.save":       {"Save", "Salvează", "Сохранить"},
		"signin.title":    {"Sign in", "Autentificare", "Вход"},
		"signin.submit":   {"Sign in", "Intră", "Войти"},
		"signin.wrong":    {"Wrong email or password.", "Email sau parolă greșită.", "Неверный email или пароль."},
		"signin.slow":     {"Too many attempts. Try again in %s.", "Prea multe încercări. Reîncercați peste %s.", "Слишком много попыток. Попробуйте снова через %s."},
		"signin.signup":   {"No account yet? Sign up", "Nu aveți cont? Înregistrați-vă", "Нет аккаунта? Зарегистрируйтесь"},
		"signup.title":    {"Create an account", "Creați un cont", "Создать аккаунт"},
		"signup.submit":   {"Create account", "Creează contul", "Создать аккаунт"},
		"signup.signin":   {"Already have an account? Sign in", "Aveți deja un cont? Autentificați-vă", "Уже есть аккаунт? Войдите"},
		"signup.taken":    {"That email is already registered.", "Acest email este deja înregistrat.", "Этот email уже зарегистрирован."},
		"signup.off":      {"Sign-up is turned off on this instance.", "Înregistrarea este dezactivată pe această instanță.", "Регистрация на этом сервере отключена."},
		"signup.slow":     {"Too many sign-ups from your network. Try again in %s.", "Prea multe înregistrări din rețeaua dvs. Reîncercați peste %s.", "Слишком много регистраций из вашей сети. Попробуйте снова через %s."},
		"signup.namelong": {"The name must be at most 100 characters.", "Numele poate avea cel mult 100 de caractere.", "Имя должно быть не длиннее 100 символов."},
		"password.short":  {"The password must be at least 10 characters.", "Parola trebuie să aibă cel puțin 10 caractere.", "Пароль должен содержать не меньше 10 символов."},
		"password.long":   {"The password must be at most 72 bytes (72 Latin letters, fewer of other scripts).", "Parola poate avea cel mult 72 de octeți (72 de litere latine, mai puține din alte alfabete).", "Пароль должен занимать не больше 72 байт (72 латинские буквы или 36 кириллических)."},
		"password.common": {"This password is one of the most common ones. Choose another.", "Această parolă este printre cele mai folosite. Alegeți alta.", "Этот пароль — один из самых распространённых. Выберите другой."},
		"email.invalid":   {"Enter a valid email address.", "Introduceți o adresă de email validă.", "Введите корректный email."},
		"password.title":  {"Change password", "Schimbă parola", "Смена пароля"},
		"password.old":    {"Current password", "Parola actuală", "Текущий пароль"},
		"password.new":    {"New password", "Parola nouă", "Новый пароль"},
		"password.done":   {"Password changed.", "Parola a fost schimbată.", "Пароль изменён."},
		"password.wrong":  {"The current password is wrong.", "Parola actuală este greșită.", "Текущий пароль неверен."},
		"error.notfound":  {"Not found.", "Nu a fost găsit.", "Не найдено."},
		"error.forbidden": {"Only the account owner can do this.", "Doar proprietarul contului poate face asta.", "Это может сделать только владелец аккаунта."},
		"error.internal":  {"Something went wrong. Please try again.", "Ceva nu a mers. Încercați din nou.", "Что-то пошло не так. Попробуйте ещё раз."},
	})
}
