// Package extract turns a file or a web page into text for the knowledge:
// HTML (the page's main content, without navigation, headers, footers,
// banners, scripts and styles), PDF, DOCX, plain text and Markdown, told
// apart by their content, not their name. The text is Markdown-like: each
// heading starts a line with "#", so it splits into passages like a
// document.
package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Format is a kind of content Extract understands.
type Format string

const (
	FormatText    Format = "text" // plain text or Markdown
	FormatHTML    Format = "html"
	FormatPDF     Format = "pdf"
	FormatDOCX    Format = "docx"
	FormatUnknown Format = ""
)

// MaxBytes is the largest input Extract takes.
const MaxBytes = 10 << 20

// Errors with words an owner understands (the API answers 400 with them).
var (
	ErrUnsupported = errors.New("this file is not text, Markdown, HTML, PDF or DOCX")
	ErrNoText      = errors.New("this PDF has no text layer (a scanned document?): run OCR on it or upload its text")
	ErrTooLarge    = errors.New("the file is larger than 10 MiB")
	// ErrNoContent is a web page with no main content: only navigation,
	// links or nothing readable (a site map, an empty shell filled in by
	// scripts). Its text would be garbage in the knowledge.
	ErrNoContent = errors.New("this page has no readable main content (only navigation or links)")
	// ErrDamaged is a PDF or DOCX that cannot be read: damaged, encrypted
	// with a password, or not really what its first bytes say.
	ErrDamaged = errors.New("this file could not be read: it is damaged or protected by a password")
	// ErrUnpacksTooLarge is a DOCX whose text unpacks to more than
	// maxUnpacked: a zip bomb, or a document far beyond any knowledge bound.
	ErrUnpacksTooLarge = errors.New("this DOCX unpacks to more than 64 MiB")
)

// Document is what Extract found.
type Document struct {
	Title string // the page's or file's own title; "" when it has none
	Text  string // Markdown-like text
	Lang  string // the language it declares (html lang), lower-case base tag; "" when none
}

// sniffLen is how far into the data Detect looks for a PDF header and for
// binary bytes: PDF readers accept the header anywhere in the first KiB.
const sniffLen = 1024

// Detect tells the format of data by its content.
func Detect(data []byte) Format {
	head := data[:min(len(data), sniffLen)]
	switch i := bytes.Index(head, []byte("%PDF-")); {
	case i == 0, i > 0 && !isText(data):
		// A header after some bytes of junk is still a PDF to readers;
		// a text that mentions "%PDF-" is not.
		return FormatPDF
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		if isDOCX(data) {
			return FormatDOCX
		}
		return FormatUnknown // another zip: an XLSX, an ODT, an archive
	case !isText(data):
		return FormatUnknown
	}
	switch ct := http.DetectContentType(bytes.TrimPrefix(data, bom)); {
	case strings.HasPrefix(ct, "text/html"):
		return FormatHTML
	case strings.HasPrefix(ct, "text/xml") && bytes.Contains(bytes.ToLower(head), []byte("<html")):
		return FormatHTML // XHTML, which starts with <?xml
	}
	return FormatText
}

// isDOCX reports whether data is a zip holding word/document.xml.
func isDOCX(data []byte) bool {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return false
	}
	for _, f := range z.File {
		if f.Name == "word/document.xml" {
			return true
		}
	}
	return false
}

var bom = []byte("\uFEFF")

// isText reports whether data is UTF-8 with no control characters other
// than tabs, line and page breaks: images and other binaries have invalid
// UTF-8 or NUL bytes near the start, and a text that has them would not
// store (PostgreSQL refuses NUL).
func isText(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	return !bytes.ContainsFunc(data, func(r rune) bool {
		return r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f
	})
}

// Extract returns the text of data. pageURL is the page's address for HTML
// (links and readability); "" for uploads.
func Extract(data []byte, pageURL string) (Document, error) {
	if len(data) > MaxBytes {
		return Document{}, ErrTooLarge
	}
	switch Detect(data) {
	case FormatPDF:
		return extractPDF(data)
	case FormatDOCX:
		return extractDOCX(data)
	case FormatHTML:
		return extractHTML(data, pageURL)
	case FormatText:
		return extractText(data), nil
	}
	return Document{}, ErrUnsupported
}

// extractText keeps the text as it is (Markdown is already the form the
// splitter reads), without a byte-order mark and with Unix line ends.
func extractText(data []byte) Document {
	s := string(bytes.TrimPrefix(data, bom))
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return Document{Text: strings.TrimSpace(s)}
}
