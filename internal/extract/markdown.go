package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// mdWriter renders HTML as Markdown-like text: headings as "#" lines,
// paragraphs set apart by blank lines, list items and table rows one a
// line. It counts letters, and letters inside links, so that a page of
// links can be told from a page of content.
type mdWriter struct {
	out         strings.Builder
	prefix      string          // "## " or "- " for the line being built
	line        strings.Builder // the line being built
	space       bool            // a space is due before the next word
	tight       bool            // the last line was a list item or row: no blank line after it
	inline      int             // >0 inside a list item, cell or heading: blocks are spaces
	links       int             // depth inside <a>
	letters     int
	linkLetters int
}

func render(n *html.Node) *mdWriter {
	w := &mdWriter{}
	w.node(n)
	w.endBlock()
	return w
}

func (w *mdWriter) String() string { return strings.TrimSpace(w.out.String()) }

func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	default:
		w.children(n)
		return
	}
	if dropTags[n.DataAtom] {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if w.inline > 0 {
			w.children(n)
			return
		}
		w.endBlock()
		w.prefix = strings.Repeat("#", int(n.Data[1]-'0')) + " "
		w.inline++
		w.children(n)
		w.inline--
		w.endBlock()
	case atom.Li, atom.Dt, atom.Dd:
		w.endLine()
		w.prefix = "- "
		w.inline++
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol) {
				// A nested list's items are lines of their own.
				w.inline--
				w.endLine()
				w.node(c)
				w.inline++
				continue
			}
			w.node(c)
		}
		w.inline--
		w.endLine()
	case atom.Ul, atom.Ol, atom.Dl:
		if w.inline > 0 {
			w.children(n)
			return
		}
		w.endBlock()
		w.children(n)
		w.endBlock()
	case atom.Table:
		w.endBlock()
		w.table(n)
		w.endBlock()
	case atom.Br:
		if w.inline > 0 {
			w.space = true
		} else {
			w.endLine()
			w.tight = true // the lines of one paragraph
		}
	case atom.Pre:
		w.endBlock()
		for _, l := range strings.Split(textOf(n), "\n") {
			if strings.TrimSpace(l) != "" {
				w.raw(l)
			}
		}
		w.endBlock()
	case atom.A:
		w.links++
		w.children(n)
		w.links--
	case atom.Img:
		// Pictures carry no text worth a passage; their alt text is
		// mostly "logo" or a file name.
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Blockquote,
		atom.Figure, atom.Figcaption, atom.Address, atom.Details, atom.Summary,
		atom.Header, atom.Footer, atom.Hr, atom.Center, atom.Fieldset:
		if w.inline > 0 {
			w.space = true
			w.children(n)
			w.space = true
			return
		}
		w.endBlock()
		w.children(n)
		w.endBlock()
	default:
		w.children(n)
	}
}

func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// table writes each row as a line of cells separated by " | ". Nested
// tables' text joins the cell it is in.
func (w *mdWriter) table(t *html.Node) {
	for n := range t.Descendants() {
		if n.Type != html.ElementNode || n.DataAtom != atom.Tr || nearestTable(n) != t {
			continue
		}
		w.endLine()
		w.inline++
		first := true
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
				continue
			}
			if !first {
				w.line.WriteString(" | ")
				w.space = false
			}
			first = false
			w.children(c)
		}
		if strings.Trim(w.line.String(), " |") == "" {
			w.line.Reset()
		}
		w.endLine() // while inline: the next row follows on the next line
		w.inline--
	}
}

func nearestTable(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.Table {
			return p
		}
	}
	return nil
}

// text adds words, collapsing white space as a browser does.
func (w *mdWriter) text(s string) {
	if s == "" {
		return
	}
	if unicode.IsSpace(rune(s[0])) || strings.HasPrefix(s, "\u00a0") {
		w.space = true
	}
	for i, f := range strings.Fields(s) {
		if i > 0 || w.space {
			if w.line.Len() > 0 {
				w.line.WriteByte(' ')
			}
		}
		w.space = false
		w.line.WriteString(f)
		for _, r := range f {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				w.letters++
				if w.links > 0 {
					w.linkLetters++
				}
			}
		}
	}
	if unicode.IsSpace(rune(s[len(s)-1])) {
		w.space = true
	}
}

// raw adds a line as it is (preformatted text).
func (w *mdWriter) raw(l string) {
	w.line.WriteString(strings.TrimRightFunc(l, unicode.IsSpace))
	for _, r := range l {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			w.letters++
		}
	}
	w.endLine()
}

// endLine ends the line being built; a line with no words is dropped
// (an empty list item, an empty heading).
func (w *mdWriter) endLine() {
	text := strings.TrimSpace(w.line.String())
	w.line.Reset()
	w.space = false
	prefix := w.prefix
	w.prefix = ""
	if text == "" {
		return
	}
	if w.out.Len() > 0 {
		if w.tight {
			w.out.WriteByte('\n')
		} else {
			w.out.WriteString("\n\n")
		}
	}
	w.out.WriteString(prefix + text)
	w.tight = prefix == "- " || w.inline > 0
}

// endBlock ends the line and the block: what follows starts after a blank
// line.
func (w *mdWriter) endBlock() {
	w.endLine()
	w.tight = false
}
