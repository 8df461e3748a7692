package dashboard

import (
	"io/fs"
	"net/http"
	"regexp"
	"testing"

	dashweb "parley/web/dashboard"
	"parley/web/i18n"
)

// Every key a template translates exists in the catalogues; that every
// key has every language is web/i18n's test.
func TestTemplatesUseKnownMessages(t *testing.T) {
	t.Parallel()
	use := regexp.MustCompile(`t \$?\.Lang "([a-z0-9_.]+)"`)
	err := fs.WalkDir(dashweb.FS, "templates", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(dashweb.FS, path)
		if err != nil {
			return err
		}
		for _, m := range use.FindAllStringSubmatch(string(b), -1) {
			if !i18n.Has(m[1]) {
				t.Errorf("%s uses unknown message %q", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLanguageFromAcceptLanguage(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"":                        "en",
		"ro":                      "ro",
		"de-DE,de;q=0.9,ru;q=0.8": "ru",
		"fr":                      "en",
		"RU-ru":                   "ru",
	} {
		r := mustRequest(header)
		if got := language(r); got != want {
			t.Errorf("Accept-Language %q: %s, want %s", header, got, want)
		}
	}
}

func mustRequest(acceptLanguage string) *http.Request {
	r, _ := http.NewRequest("GET", "/", nil)
	r.Header.Set("Accept-Language", acceptLanguage)
	return r
}
