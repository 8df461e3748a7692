package web

import (
	"bytes"
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
		"index":         string(IndexHTML),
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
// markup, and nothing may need eval or inline styles.
func TestWidgetAvoidsUnsafeAPIs(t *testing.T) {
	js := string(WidgetJS)
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", ".style.", "setAttribute('style'", "cssText"} {
		if strings.Contains(js, bad) {
			t.Errorf("widget.js uses %s", bad)
		}
	}
}
