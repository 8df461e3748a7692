package agentadmin

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/extract"
)

// MaxUpload is the largest file an owner may upload as a document, through
// the management API and the dashboard alike.
const MaxUpload = extract.MaxBytes

// FileDocument reads an uploaded file (text, Markdown, HTML, PDF or DOCX,
// told apart by content) and returns it as a document for AddKnowledge:
// its text, and its title (the one typed, else the file's own, else the
// file name). The one function behind both upload forms.
//
// A file past MaxUpload, or whose text is longer than a document may hold
// (domain.MaxDocumentChars), is a 413 *domain.KnowledgeLimitError naming
// the sizes: an upload is one document, stored whole or not at all, and
// the owner splits a longer file into parts. A file with no usable text
// is a 400 *domain.KnowledgeError with the extractor's words.
func FileDocument(file io.Reader, filename, title, lang string) (domain.KnowledgeEntry, error) {
	data, err := io.ReadAll(io.LimitReader(file, MaxUpload+1))
	if err != nil {
		return domain.KnowledgeEntry{}, err
	}
	if len(data) > MaxUpload {
		return domain.KnowledgeEntry{}, fileTooLarge(extract.ErrTooLarge)
	}
	doc, err := extract.Extract(data, "")
	if err != nil {
		return domain.KnowledgeEntry{}, fileError(err)
	}
	if n := utf8.RuneCountInString(doc.Text); n > domain.MaxDocumentChars {
		return domain.KnowledgeEntry{}, &domain.KnowledgeLimitError{
			Problem: domain.KnowledgeFileLong, Max: domain.MaxDocumentChars, Would: n,
			Msg: fmt.Sprintf("the file's text is %d characters and a document holds at most %d: split the file and upload the parts", n, domain.MaxDocumentChars),
		}
	}
	e := domain.KnowledgeEntry{Kind: domain.KindDocument, Title: strings.TrimSpace(title), Text: doc.Text, Lang: lang}
	if e.Title == "" {
		e.Title = doc.Title
		if e.Title == "" {
			e.Title = fileTitle(filename)
		}
		if utf8.RuneCountInString(e.Title) > domain.MaxTitleChars {
			// A title the owner did not type is cut rather than refused.
			e.Title = strings.TrimSpace(string([]rune(e.Title)[:domain.MaxTitleChars]))
		}
	}
	if e.Lang == "" {
		e.Lang = doc.Lang
	}
	return e, nil
}

// fileTitle is a file name without its folder and extension.
func fileTitle(name string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

func fileTooLarge(err error) error {
	return &domain.KnowledgeLimitError{Problem: domain.KnowledgeFileLarge, Max: MaxUpload, Msg: err.Error()}
}

// fileError turns the extractor's refusals into the knowledge's errors.
func fileError(err error) error {
	problem := domain.KnowledgeFileUnsupported
	switch {
	case errors.Is(err, extract.ErrTooLarge), errors.Is(err, extract.ErrUnpacksTooLarge):
		return fileTooLarge(err)
	case errors.Is(err, extract.ErrNoText):
		problem = domain.KnowledgeFileNoText
	case errors.Is(err, extract.ErrNoContent):
		problem = domain.KnowledgeFileNoContent
	case errors.Is(err, extract.ErrDamaged):
		problem = domain.KnowledgeFileDamaged
	case errors.Is(err, extract.ErrUnsupported):
	default:
		return err
	}
	return &domain.KnowledgeError{InvalidError: domain.InvalidError{Msg: err.Error()}, Problem: problem}
}
