package widgetbuild

import (
	"os"
	"strings"
	"testing"

	"parley/web/i18n"
)

// uiNames are the UI's keys as ui.js names them, read from the source so the
// tests follow it.
func uiNames(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../widget/ui.js")
	if err != nil {
		t.Fatal(err)
	}
	m := textsPlaceholder.FindSubmatch(src)
	if m == nil || !strings.HasPrefix(string(m[1]), "close|message|") {
		t.Fatalf("ui.js does not name its texts as the tests expect: %q", m)
	}
	return string(m[1])
}

func TestInjectTexts(t *testing.T) {
	t.Parallel()
	code := "const TEXTS = PARLEY_TEXTS('" + uiNames(t) + "');"
	got, err := injectTexts(code)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range i18n.Languages {
		want := `"` + l + `":"` + i18n.Text(l, "widget.close") + "|" + i18n.Text(l, "widget.message") + "|"
		if !strings.Contains(got, want) {
			t.Errorf("%s: %s does not start its texts with %s", l, got, want)
		}
	}
	if strings.Contains(got, "PARLEY_TEXTS") {
		t.Errorf("placeholder left: %s", got)
	}
}

// A name the catalogues lack, a catalogue key ui.js leaves out, the
// launcher's key, and two calls are build errors, not a widget showing
// "undefined".
func TestInjectTextsRefuses(t *testing.T) {
	t.Parallel()
	names := uiNames(t)
	for name, code := range map[string]string{
		"unknown name": "PARLEY_TEXTS('" + names + "|nosuchtext')",
		"left out":     "PARLEY_TEXTS('" + strings.TrimPrefix(names, "close|") + "')",
		"launcher":     "PARLEY_TEXTS('" + names + "|open')",
		"twice":        "PARLEY_TEXTS('" + names + "'); PARLEY_TEXTS('" + names + "')",
		"none":         "const TEXTS = {};",
	} {
		if got, err := injectTexts(code); err == nil {
			t.Errorf("%s: no error, %s", name, got)
		}
	}
}

func TestInjectOpen(t *testing.T) {
	t.Parallel()
	got, err := injectOpen("const OPEN = PARLEY_OPEN;")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range i18n.Languages {
		if want := `"` + l + `":"` + i18n.Text(l, "widget.open") + `"`; !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	if _, err := injectOpen("const OPEN = PARLEY_OPEN, AGAIN = PARLEY_OPEN;"); err == nil {
		t.Error("two placeholders: no error")
	}
}
