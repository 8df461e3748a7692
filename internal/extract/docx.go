package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
)

// maxUnpacked bounds what is read from one part of a DOCX. A 10 MiB
// archive could otherwise inflate to gigabytes (a zip bomb); real
// documents' XML is a few times their text, far below this.
const maxUnpacked = 64 << 20

// The WordprocessingML namespace: elements of other namespaces (drawings,
// markup compatibility) are skipped or handled by name below.
const wordNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

const mcNS = "http://schemas.openxmlformats.org/markup-compatibility/2006"

func extractDOCX(data []byte) (Document, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Document{}, ErrDamaged
	}
	parts := map[string]*zip.File{}
	for _, f := range z.File {
		parts[f.Name] = f
	}
	levels := map[string]int{}
	if f := parts["word/styles.xml"]; f != nil {
		if levels, err = headingStyles(f); err != nil {
			return Document{}, err
		}
	}
	var doc Document
	if f := parts["docProps/core.xml"]; f != nil {
		if doc.Title, err = coreTitle(f); err != nil {
			return Document{}, err
		}
	}
	w := docxWriter{levels: levels}
	if err := w.read(parts["word/document.xml"]); err != nil {
		return Document{}, err
	}
	doc.Text = strings.TrimSpace(w.out.String())
	return doc, nil
}

// openPart opens a part of the archive, reading at most maxUnpacked bytes
// of it; more is ErrUnpacksTooLarge (the header's size may lie, so the
// reader itself is bounded).
func openPart(f *zip.File) (io.ReadCloser, error) {
	if f.UncompressedSize64 > maxUnpacked {
		return nil, ErrUnpacksTooLarge
	}
	rc, err := f.Open()
	if err != nil {
		return nil, ErrDamaged
	}
	return struct {
		io.Reader
		io.Closer
	}{&boundedReader{r: rc, n: maxUnpacked}, rc}, nil
}

// boundedReader fails with ErrUnpacksTooLarge past n bytes, where
// io.LimitReader would end quietly and cut the document short.
type boundedReader struct {
	r io.Reader
	n int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		var one [1]byte
		if n, _ := b.r.Read(one[:]); n > 0 {
			return 0, ErrUnpacksTooLarge
		}
		return b.r.Read(p)
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	return n, err
}

// xmlError keeps the bound's error and calls anything else damage.
func xmlError(err error) error {
	if errors.Is(err, ErrUnpacksTooLarge) {
		return err
	}
	return ErrDamaged
}

// headingStyles maps paragraph style ids to heading levels (1-based):
// styles with an outline level or named "heading N", and "Title". Ids are
// not enough: Word gives them in the author's language ("Titlu1").
func headingStyles(f *zip.File) (map[string]int, error) {
	rc, err := openPart(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	levels := map[string]int{}
	d := xml.NewDecoder(rc)
	id := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return levels, nil
		}
		if err != nil {
			return nil, xmlError(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Space != wordNS {
			continue
		}
		switch se.Name.Local {
		case "style":
			id = attr(se, "styleId")
		case "name":
			name := strings.ToLower(attr(se, "val"))
			if n, ok := strings.CutPrefix(name, "heading "); ok {
				if lvl, err := strconv.Atoi(n); err == nil && lvl >= 1 {
					levels[id] = min(lvl, 6)
				}
			} else if name == "title" {
				levels[id] = 1
			}
		case "outlineLvl":
			if lvl, err := strconv.Atoi(attr(se, "val")); err == nil && lvl < 9 && id != "" {
				levels[id] = min(lvl+1, 6)
			}
		}
	}
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// coreTitle reads dc:title from docProps/core.xml.
func coreTitle(f *zip.File) (string, error) {
	rc, err := openPart(f)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	var core struct {
		Title string `xml:"http://purl.org/dc/elements/1.1/ title"`
	}
	if err := xml.NewDecoder(rc).Decode(&core); err != nil {
		return "", xmlError(err)
	}
	return strings.TrimSpace(core.Title), nil
}

// docxWriter turns word/document.xml into Markdown-like text as it
// streams by: the whole tree is never held.
type docxWriter struct {
	levels map[string]int
	out    strings.Builder

	para    strings.Builder // the paragraph being read
	level   int             // its heading level, 0 for body text
	list    bool            // it is a list item
	inText  bool            // inside w:t
	skip    int             // depth inside skipped content (mc:Fallback, deleted text)
	tables  int             // table nesting depth
	cells   []string        // the row being read (outermost table)
	inRow   bool
	lastRow bool // the previous block was a table row or a list item
}

func (w *docxWriter) read(f *zip.File) error {
	if f == nil {
		return ErrDamaged
	}
	rc, err := openPart(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := xml.NewDecoder(rc)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return xmlError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			w.start(t)
		case xml.EndElement:
			w.end(t)
		case xml.CharData:
			if w.inText && w.skip == 0 {
				w.para.Write(t)
			}
		}
	}
}

func (w *docxWriter) start(se xml.StartElement) {
	if se.Name.Space == mcNS && se.Name.Local == "Fallback" || w.skip > 0 {
		// A fallback repeats its choice's text for older readers.
		w.skip++
		return
	}
	if se.Name.Space != wordNS {
		return
	}
	switch se.Name.Local {
	case "p":
		w.para.Reset()
		w.level, w.list = 0, false
	case "pStyle":
		w.level = max(w.level, w.levels[attr(se, "val")])
	case "outlineLvl":
		if lvl, err := strconv.Atoi(attr(se, "val")); err == nil && lvl < 9 {
			w.level = min(lvl+1, 6)
		}
	case "numPr":
		w.list = true
	case "t":
		w.inText = true
	case "tab":
		w.para.WriteByte(' ')
	case "br", "cr":
		w.para.WriteByte(' ')
	case "noBreakHyphen":
		w.para.WriteByte('-')
	case "tbl":
		w.tables++
		if w.tables == 1 {
			w.lastRow = false // a blank line before the table
		}
	case "tr":
		if w.tables == 1 {
			w.cells, w.inRow = w.cells[:0], true
		}
	case "tc":
		if w.tables == 1 && w.inRow {
			w.cells = append(w.cells, "")
		}
	case "del", "moveFrom":
		w.skip++ // tracked deletions are not the document's text
	}
}

func (w *docxWriter) end(ee xml.EndElement) {
	if w.skip > 0 {
		w.skip--
		return
	}
	if ee.Name.Space != wordNS {
		return
	}
	switch ee.Name.Local {
	case "t":
		w.inText = false
	case "p":
		w.endParagraph()
	case "tr":
		if w.tables == 1 && w.inRow {
			w.inRow = false
			if row := strings.Join(w.cells, " | "); strings.Trim(row, " |") != "" {
				w.block(row, true)
			}
		}
	case "tbl":
		w.tables--
		if w.tables == 0 {
			w.lastRow = false // a blank line after the table
		}
	}
}

// endParagraph writes the paragraph just read: into the current table
// cell when inside a table, else as a heading, list item or paragraph.
func (w *docxWriter) endParagraph() {
	text := strings.Join(strings.Fields(w.para.String()), " ")
	w.para.Reset()
	if w.tables > 0 {
		if text == "" {
			return
		}
		// A cell's paragraphs, and a nested table's, make one cell of
		// the outermost row: a row is one line.
		if n := len(w.cells); w.inRow && n > 0 {
			w.cells[n-1] = strings.TrimSpace(w.cells[n-1] + " " + text)
		}
		return
	}
	switch {
	case text == "":
	case w.level > 0:
		w.block(strings.Repeat("#", w.level)+" "+text, false)
	case w.list:
		w.block("- "+text, true)
	default:
		w.block(text, false)
	}
}

// block writes a line: rows and list items follow each other on single
// lines, anything else is set apart by a blank line.
func (w *docxWriter) block(line string, tight bool) {
	if w.out.Len() > 0 {
		if tight && w.lastRow {
			w.out.WriteByte('\n')
		} else {
			w.out.WriteString("\n\n")
		}
	}
	w.out.WriteString(line)
	w.lastRow = tight
}
