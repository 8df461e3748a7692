// Package extract turns a file or a web page into text for the knowledge:
// HTML (the page's main content, without navigation, headers, footers,
// banners, scripts and styles), PDF, DOCX, plain text and Markdown, told
// apart by their content, not their name. The text is Markdown-like: each
// heading starts a line with "#", so it splits into passages like a
// document.
package extract

import "errors"

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
)

// Document is what Extract found.
type Document struct {
	Title string // the page's or file's own title; "" when it has none
	Text  string // Markdown-like text
	Lang  string // the language it declares (html lang, DOCX), lower-case base tag; "" when none
}

// Detect tells the format of data by its content.
func Detect(data []byte) Format { return FormatUnknown }

// Extract returns the text of data. pageURL is the page's address for HTML
// (links and readability); "" for uploads.
func Extract(data []byte, pageURL string) (Document, error) {
	return Document{}, errors.New("extract: not built yet")
}
