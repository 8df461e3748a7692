package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage is one answerable piece of a document.
type Passage struct {
	Heading string // the nearest heading above the text, else the document's title
	Text    string
}

// Passage sizes in characters. A passage is what the agent replies with, so
// it should answer one thing: long enough for a paragraph with its context,
// short enough for a chat bubble. Paragraphs shorter than minPassage (a list
// intro, a one-line remark) join a neighbour under the same heading.
const (
	maxPassage = 800
	minPassage = 160
)

// SplitDocument splits a plain-text or Markdown document into passages: at
// Markdown headings (ATX "#…" and setext underlines) and at blank lines.
// Tiny paragraphs merge with a neighbour, paragraphs longer than maxPassage
// are cut at sentence ends, and passages never cross a heading. Fenced code
// blocks stay whole. Each passage's text is a substring of text.
func SplitDocument(title, text string) []Passage {
	s := splitter{title: strings.TrimSpace(title)}
	s.heading = s.title
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	inFence := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		trimmed := strings.TrimSpace(line)
		switch {
		case inFence:
			s.cur = append(s.cur, line)
			inFence = !isFence(trimmed)
		case isFence(trimmed):
			s.cur = append(s.cur, line)
			inFence = true
		case isATX(trimmed):
			s.endParagraph()
			s.endSection(atxHeading(trimmed))
		case len(s.cur) == 1 && isSetextUnderline(trimmed):
			h := strings.TrimSpace(s.cur[0])
			s.cur = nil
			s.endSection(h)
		case trimmed == "" || isRule(trimmed):
			s.endParagraph()
		default:
			s.cur = append(s.cur, line)
		}
	}
	s.endParagraph()
	s.endSection("")
	return s.out
}

type splitter struct {
	title, heading string
	cur            []string // lines of the paragraph being read
	paras          []string // paragraphs of the section being read
	out            []Passage
}

func (s *splitter) endParagraph() {
	if len(s.cur) > 0 {
		s.paras = append(s.paras, strings.Join(s.cur, "\n"))
		s.cur = nil
	}
}

// endSection turns the section's paragraphs into passages and starts a new
// section under heading (the title when the heading is empty).
func (s *splitter) endSection(heading string) {
	var pieces []string
	for _, p := range s.paras {
		pieces = append(pieces, cutLong(strings.TrimSpace(p), maxPassage)...)
	}
	acc, accLen := "", 0
	for _, p := range pieces {
		n := utf8.RuneCountInString(p)
		switch {
		case acc == "":
			acc, accLen = p, n
		case (accLen < minPassage || n < minPassage) && accLen+2+n <= maxPassage:
			acc, accLen = acc+"\n\n"+p, accLen+2+n
		default:
			s.out = append(s.out, Passage{s.heading, acc})
			acc, accLen = p, n
		}
	}
	if acc != "" {
		s.out = append(s.out, Passage{s.heading, acc})
	}
	s.paras = nil
	s.heading = heading
	if s.heading == "" {
		s.heading = s.title
	}
}

// cutLong cuts p into pieces of at most max characters, at a sentence end
// (or line end) where there is one, else between words.
func cutLong(p string, max int) []string {
	var out []string
	for utf8.RuneCountInString(p) > max {
		cut := cutPoint(p, max)
		out = append(out, strings.TrimSpace(p[:cut]))
		p = strings.TrimSpace(p[cut:])
	}
	if p != "" {
		out = append(out, p)
	}
	return out
}

// cutPoint is the byte offset where a piece of p of at most max characters
// should end.
func cutPoint(p string, max int) int {
	limit, n := len(p), 0
	for i := range p {
		if n == max {
			limit = i
			break
		}
		n++
	}
	sentence, space := -1, -1
	var prev rune
	for i, r := range p[:limit+1] {
		if unicode.IsSpace(r) && i > 0 {
			space = i
			if r == '\n' || strings.ContainsRune(".!?…;", prev) {
				sentence = i
			}
		}
		prev = r
	}
	switch {
	case sentence > 0:
		return sentence
	case space > 0:
		return space
	}
	return limit
}

func isFence(s string) bool { return strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~") }

// isATX reports whether s is an ATX heading line, possibly empty ("#").
func isATX(s string) bool {
	n := len(s) - len(strings.TrimLeft(s, "#"))
	return n >= 1 && n <= 6 && (len(s) == n || s[n] == ' ' || s[n] == '\t')
}

// atxHeading returns the text of an ATX heading line ("## Returns ##" →
// "Returns"), "" when s is not one.
func atxHeading(s string) string {
	if !isATX(s) {
		return ""
	}
	h := strings.TrimSpace(strings.TrimLeft(s, "#"))
	return strings.TrimSpace(strings.TrimRight(h, "#"))
}

func isSetextUnderline(s string) bool {
	return len(s) >= 2 && (strings.Trim(s, "=") == "" || (len(s) >= 3 && strings.Trim(s, "-") == ""))
}

// isRule reports a thematic break ("---", "***"), which separates
// paragraphs like a blank line.
func isRule(s string) bool {
	t := strings.ReplaceAll(s, " ", "")
	return len(t) >= 3 && (strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == "")
}
