package web

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
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

// Every language must have every text, or the UI would show "undefined".
func TestWidgetTextsComplete(t *testing.T) {
	src, err := os.ReadFile("widget/ui.js")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)const TEXTS = \{(.*?)\n\};`).FindSubmatch(src)
	if block == nil {
		t.Fatal("TEXTS not found in ui.js")
	}
	names := regexp.MustCompile(`const \[(tClose[^\]]*)\] = TEXTS`).FindSubmatch(src)
	if names == nil {
		t.Fatal("the destructuring of TEXTS not found in ui.js")
	}
	want := len(strings.Split(string(names[1]), ","))
	langs := regexp.MustCompile(`(?m)^\s*(\w\w): '([^']*)',$`).FindAllSubmatch(block[1], -1)
	if len(langs) != 3 {
		t.Fatalf("found %d languages in TEXTS, want en, ro, ru", len(langs))
	}
	for _, l := range langs {
		texts := strings.Split(string(l[2]), "|")
		if len(texts) != want {
			t.Errorf("%s has %d texts, want %d", l[1], len(texts), want)
		}
		for i, s := range texts {
			if strings.TrimSpace(s) == "" {
				t.Errorf("%s text %d is empty", l[1], i)
			}
		}
	}
	loader, err := os.ReadFile("widget/loader.js")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`const OPEN = \{ en: '[^']+', ro: '[^']+', ru: '[^']+' \};`).Match(loader) {
		t.Error("the loader's launcher name is not in en, ro and ru")
	}
}
