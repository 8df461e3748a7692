package dashboard

import (
	"fmt"
	"html/template"
	"strings"
)

// Text from visitors (visitor ids, page URLs, messages) and from tenants
// (agent, user, operator and token names) may hold Unicode's bidirectional
// controls. Shown as they are, U+202E (RIGHT-TO-LEFT OVERRIDE) and its
// kin reorder what follows them, so a visitor id can make the text around
// it read as something else ("exe.txt" for "txt.exe"). The dashboard shows
// such short text through the template function bidi: every control is
// written as a visible escape ("\u202E"), and the value is isolated in a
// <bdi> element, so that even right-to-left text that needs no control
// (an Arabic or Hebrew name) cannot reorder its surroundings.
// docs/dashboard.md has the rule.

// isBidiControl reports whether r is a bidirectional formatting
// character: the embeddings and overrides (U+202A–U+202E), the isolates
// (U+2066–U+2069) and the marks (LRM U+200E, RLM U+200F, ALM U+061C).
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// showBidi writes each bidi control in s as a visible \uXXXX escape.
func showBidi(s string) string {
	if strings.IndexFunc(s, isBidiControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isBidiControl(r) {
			fmt.Fprintf(&b, `\u%04X`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// bidi is the template function for short outside text in HTML text: its
// controls shown, escaped for HTML, in a <bdi>. (In an attribute or an
// <option>, where no element can go, use bidiText.)
func bidi(s string) template.HTML {
	return template.HTML("<bdi>" + template.HTMLEscapeString(showBidi(s)) + "</bdi>")
}

// bidiText is showBidi for places that take only text.
func bidiText(s string) string { return showBidi(s) }

// sprintfHTML fills a message's %s verbs with values made by bidi (or
// other safe HTML), escaping the message itself: printf would turn the
// <bdi> into visible text.
func sprintfHTML(format string, args ...template.HTML) template.HTML {
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a
	}
	return template.HTML(fmt.Sprintf(template.HTMLEscapeString(format), vals...))
}
