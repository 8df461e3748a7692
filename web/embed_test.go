package web

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"parley/web/i18n"
)

func renderDemo(t *testing.T, key string) string {
	t.Helper()
	var b bytes.Buffer
	if err := DemoTemplate.Execute(&b, DemoData{WidgetKey: key}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestDemoWithKeyEmbedsTheWidget(t *testing.T) {
	page := renderDemo(t, "wk_demo123")
	if !strings.Contains(page, `<script async src="/widget.js" data-key="wk_demo123"></script>`) {
		t.Errorf("widget tag missing:\n%s", page)
	}
	if strings.Contains(page, "PARLEY_DEMO=false") {
		t.Error("notice shown although a key is set")
	}
}

func TestDemoWithoutKeyShowsNotice(t *testing.T) {
	page := renderDemo(t, "")
	if !strings.Contains(page, "No demo agent on this instance (PARLEY_DEMO=false)") {
		t.Error("notice missing")
	}
	if strings.Contains(page, `src="/widget.js"`) {
		t.Error("widget embedded without a key")
	}
}

func TestDemoEscapesTheKey(t *testing.T) {
	page := renderDemo(t, `"><script>alert(1)</script>`)
	if strings.Contains(page, "<script>alert") {
		t.Error("key was not escaped")
	}
}

// The pages must work under a CSP that allows only 'self': no inline
// scripts, no <style> blocks, no style attributes, no event handlers.
var inlineRe = regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>[^<]|<script(?:(?:\s(?:async|defer))*)>|<style|\sstyle=|\son[a-z]+=`)

func TestPagesHaveNothingInline(t *testing.T) {
	pages := map[string]string{
		"demo (key)":    renderDemo(t, "wk_x"),
		"demo (no key)": renderDemo(t, ""),
	}
	for name, page := range pages {
		if m := inlineRe.FindString(page); m != "" {
			t.Errorf("%s has inline content: %q", name, m)
		}
		for _, s := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
			if !strings.Contains(s, "src=") {
				t.Errorf("%s has a script without src: %s", name, s)
			}
		}
	}
}

// The widget renders visitor, AI and operator text; none of it may become
// markup, and nothing may need eval or inline styles (which a strict CSP
// refuses). Checked on the sources, where a use would be written, and on
// the minified output, which is what runs.
func TestWidgetAvoidsUnsafeAPIs(t *testing.T) {
	files := map[string][]byte{"dist/widget.js": WidgetJS, "dist/" + WidgetUIName: WidgetUI}
	for _, name := range []string{"loader.js", "ui.js"} {
		b, err := os.ReadFile("widget/" + name)
		if err != nil {
			t.Fatal(err)
		}
		files["widget/"+name] = b
	}
	for name, b := range files {
		js := string(b)
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", ".style.", "setAttribute('style'", `setAttribute("style"`, "cssText", "createElement('style')", `createElement("style")`, "setTimeout('", `setTimeout("`} {
			if strings.Contains(js, bad) {
				t.Errorf("%s uses %s", name, bad)
			}
		}
	}
}

// Every language must have every text, or the UI would show "undefined":
// ui.js destructures as many texts as it names for the build, and the
// built widget holds every text of every language Parley speaks (the
// catalogues' completeness is web/i18n's test).
func TestWidgetTextsComplete(t *testing.T) {
	src, err := os.ReadFile("widget/ui.js")
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`PARLEY_TEXTS\('([a-z|]+)'\)`).FindSubmatch(src)
	if keys == nil {
		t.Fatal("PARLEY_TEXTS('name|…') not found in ui.js")
	}
	names := regexp.MustCompile(`const \[(tClose[^\]]*)\] = TEXTS`).FindSubmatch(src)
	if names == nil {
		t.Fatal("the destructuring of TEXTS not found in ui.js")
	}
	keyList := strings.Split(string(keys[1]), "|")
	if n := len(strings.Split(string(names[1]), ",")); n != len(keyList) {
		t.Errorf("ui.js names %d texts and destructures %d", len(keyList), n)
	}
	for _, l := range i18n.Languages {
		var texts []string
		for _, k := range keyList {
			texts = append(texts, i18n.Text(l, "widget."+k))
		}
		if !bytes.Contains(WidgetUI, []byte(`"`+strings.Join(texts, "|")+`"`)) {
			t.Errorf("the UI chunk lacks the %s texts", l)
		}
		if !bytes.Contains(WidgetJS, []byte(l+`:"`+i18n.Text(l, "widget.open")+`"`)) {
			t.Errorf("the loader lacks the %s launcher name", l)
		}
	}
}
