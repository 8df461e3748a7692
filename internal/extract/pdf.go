package extract

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// extractPDF reads the text layer of a PDF in the order it was drawn,
// which for browsers' and office suites' output is the reading order.
// The library decodes the glyphs to Unicode (ToUnicode maps, Type0/CID
// fonts); this file puts them back into lines, paragraphs and headings
// from their positions and sizes.
func extractPDF(data []byte) (doc Document, err error) {
	defer func() {
		// The library panics on some malformed files instead of failing.
		if r := recover(); r != nil {
			doc, err = Document{}, ErrDamaged
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Document{}, ErrDamaged
	}
	var pages [][]pdfLine
	for _, p := range pdfPages(r.Trailer().Key("Root").Key("Pages")) {
		var lb lineBuilder
		pageGlyphs(p, lb.add)
		pages = append(pages, lb.finish())
	}
	text := layout(pages)
	if !strings.ContainsFunc(text, unicode.IsLetter) {
		return Document{}, ErrNoText
	}
	doc.Text = text
	doc.Title = pdfTitle(r)
	return doc, nil
}

// maxPages bounds the pages read, and maxTreeDepth the page tree: a
// malformed tree may loop.
const (
	maxPages     = 20000
	maxTreeDepth = 32
)

// pdfPages lists the pages in one walk of the page tree. (The library's
// Reader.Page walks from the root for each page: quadratic in the pages.)
func pdfPages(node pdf.Value) []pdf.Page {
	var pages []pdf.Page
	var walk func(n pdf.Value, depth int)
	walk = func(n pdf.Value, depth int) {
		if depth > maxTreeDepth || len(pages) >= maxPages {
			return
		}
		switch n.Key("Type").Name() {
		case "Pages":
			kids := n.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				walk(kids.Index(i), depth+1)
			}
		case "Page":
			pages = append(pages, pdf.Page{V: n})
		}
	}
	walk(node, 0)
	return pages
}

// pdfTitle is the document information's Title, when it is more than a
// file name ("Microsoft Word - offer.docx", "doc-ro.html").
func pdfTitle(r *pdf.Reader) (title string) {
	defer func() {
		if recover() != nil {
			title = ""
		}
	}()
	t := strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
	if !utf8.ValidString(t) || strings.ContainsAny(t, `/\`) || hasFileExt(t) {
		return ""
	}
	return t
}

func hasFileExt(s string) bool {
	for _, ext := range []string{".htm", ".html", ".doc", ".docx", ".odt", ".pdf", ".txt", ".md", ".rtf"} {
		if strings.HasSuffix(strings.ToLower(s), ext) {
			return true
		}
	}
	return false
}

// A pdfLine is glyphs on one baseline.
type pdfLine struct {
	y, size float64
	text    string
}

// lineBuilder groups a page's glyphs into lines, in drawing order, with a
// space where glyphs are apart and " | " where they are far apart (table
// cells, tab stops).
type lineBuilder struct {
	lines   []pdfLine
	b       strings.Builder
	cur     pdfLine
	end     float64 // where the last glyph ended
	started bool
}

func (lb *lineBuilder) add(g glyph) {
	if g.size <= 0 {
		return
	}
	if !lb.started || math.Abs(g.y-lb.cur.y) > 0.3*max(g.size, lb.cur.size) {
		lb.flush()
		lb.cur, lb.started = pdfLine{y: g.y, size: g.size}, true
	} else {
		gap := g.x - lb.end
		switch {
		case gap > g.size:
			lb.b.WriteString(" | ")
		case gap > 0.15*g.size || gap < -2*g.size:
			lb.b.WriteByte(' ')
		}
	}
	lb.cur.size = max(lb.cur.size, g.size)
	lb.b.WriteString(g.s)
	lb.end = g.x + g.w
}

func (lb *lineBuilder) flush() {
	if t := strings.Join(strings.Fields(lb.b.String()), " "); t != "" {
		lb.cur.text = t
		lb.lines = append(lb.lines, lb.cur)
	}
	lb.b.Reset()
}

func (lb *lineBuilder) finish() []pdfLine {
	lb.flush()
	return lb.lines
}

// Bullets that office suites and browsers draw as text, including the
// private-use code points of symbol fonts (OpenSymbol's and Symbol's).
func isBullet(r rune) bool {
	return strings.ContainsRune("•◦▪▫‣∙·●○■□–-*", r) || r >= 0xE000 && r <= 0xF8FF
}

// layout makes Markdown-like text of the pages' lines: lines larger than
// the body text are headings ("#" for the largest size), a vertical gap
// wider than a line's height ends a paragraph, bulleted lines are list
// items, and the lines of one paragraph are joined.
func layout(pages [][]pdfLine) string {
	headingSizes := fontSizes(pages)
	var out strings.Builder
	var para []string
	endPara := func() {
		if len(para) > 0 {
			if out.Len() > 0 {
				out.WriteString("\n\n")
			}
			out.WriteString(strings.Join(para, ""))
			para = para[:0]
		}
	}
	for _, lines := range pages {
		var prev *pdfLine
		for i := range lines {
			l := &lines[i]
			level := slices.Index(headingSizes, round(l.size)) + 1
			isHeading := level > 0 && len([]rune(l.text)) < 200
			gap := 0.0
			if prev != nil {
				gap = prev.y - l.y
			}
			switch {
			case prev == nil, gap < 0, gap > 1.45*max(l.size, prev.size), round(l.size) != round(prev.size):
				endPara()
				if isHeading {
					para = append(para, strings.Repeat("#", min(level, 6))+" ")
				}
			}
			text, item := l.text, false
			if first, size := utf8.DecodeRuneInString(text); isBullet(first) && len(text) > size && (text[size] == ' ') {
				text, item = "- "+strings.TrimSpace(text[size:]), true
			}
			switch {
			case len(para) == 0 || (len(para) == 1 && strings.HasSuffix(para[0], "# ")):
			case item, endsSentence(para[len(para)-1]), strings.Contains(text, " | "), strings.Contains(para[len(para)-1], " | "):
				// List items and table rows keep their lines.
				para = append(para, "\n")
			default:
				para = append(para, " ")
			}
			para = append(para, text)
			prev = l
		}
		endPara()
	}
	return out.String()
}

func endsSentence(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?:;…", r)
}

func round(size float64) float64 { return math.Round(size*2) / 2 }

// fontSizes finds the sizes larger than the body text's (the size most
// letters are set in), largest first: those are headings.
func fontSizes(pages [][]pdfLine) []float64 {
	count := map[float64]int{}
	for _, lines := range pages {
		for _, l := range lines {
			count[round(l.size)] += utf8.RuneCountInString(l.text)
		}
	}
	body, most := 0.0, -1
	for s, n := range count {
		if n > most || n == most && s < body {
			body, most = s, n
		}
	}
	var larger []float64
	for s := range count {
		if s >= body*1.15 {
			larger = append(larger, s)
		}
	}
	slices.Sort(larger)
	slices.Reverse(larger)
	return larger
}
