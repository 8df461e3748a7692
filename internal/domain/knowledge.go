package domain

import (
	"strings"
	"unicode/utf8"

	"parley/web/i18n"
)

// Limits on knowledge items, the same through the API and the dashboard.
const (
	MaxEntryChars    = 10000  // a question or an answer
	MaxTitleChars    = 200    // a document's title
	MaxDocumentChars = 200000 // a document's text
)

// KnowledgeProblem is what is wrong with a knowledge item. The management
// API answers with its English text; the dashboard shows it translated,
// keyed by the value.
type KnowledgeProblem string

const (
	KnowledgeBadLang    KnowledgeProblem = "lang"
	KnowledgeBadKind    KnowledgeProblem = "kind"
	KnowledgeQAMissing  KnowledgeProblem = "qa.missing"
	KnowledgeQALong     KnowledgeProblem = "qa.long"
	KnowledgeQAFields   KnowledgeProblem = "qa.fields" // title or text on a Q&A entry
	KnowledgeDocMissing KnowledgeProblem = "doc.missing"
	KnowledgeDocLong    KnowledgeProblem = "doc.long"
	KnowledgeDocFields  KnowledgeProblem = "doc.fields" // question or answer on a document
	KnowledgeNotUTF8    KnowledgeProblem = "utf8"
	KnowledgeNUL        KnowledgeProblem = "nul"
	// The agent's bounds (KnowledgeLimits): 413s, *KnowledgeLimitError.
	KnowledgeTooMany  KnowledgeProblem = "limit.items"
	KnowledgeTooLarge KnowledgeProblem = "limit.chars"
	// An uploaded file (agentadmin.FileDocument). Unreadable files are
	// 400s (*KnowledgeError with the extractor's words); a file or its text
	// beyond a bound is a 413 (*KnowledgeLimitError).
	KnowledgeFileUnsupported KnowledgeProblem = "file.unsupported"
	KnowledgeFileNoText      KnowledgeProblem = "file.notext"
	KnowledgeFileNoContent   KnowledgeProblem = "file.nocontent"
	KnowledgeFileDamaged     KnowledgeProblem = "file.damaged"
	KnowledgeFileLarge       KnowledgeProblem = "file.large"
	KnowledgeFileLong        KnowledgeProblem = "file.long"
)

var knowledgeProblemText = map[KnowledgeProblem]string{
	KnowledgeBadLang:    "knowledge lang must be " + i18n.List() + " or empty",
	KnowledgeBadKind:    `knowledge kind must be "qa" or "document"`,
	KnowledgeQAMissing:  "a question-and-answer entry needs a question and an answer",
	KnowledgeQALong:     "knowledge questions and answers are at most 10000 characters",
	KnowledgeQAFields:   `title and text belong to documents (kind "document")`,
	KnowledgeDocMissing: "a document needs a text",
	KnowledgeDocLong:    "a document's title is at most 200 characters and its text at most 200000",
	KnowledgeDocFields:  "question and answer belong to question-and-answer entries",
	KnowledgeNotUTF8:    "knowledge must be valid UTF-8 text",
	KnowledgeNUL:        "knowledge must not contain NUL characters",
}

// KnowledgeError is an invalid knowledge item. It is an *InvalidError for
// the HTTP layer (a 400) and carries the problem for translation.
type KnowledgeError struct {
	InvalidError
	Problem KnowledgeProblem
}

func (e *KnowledgeError) Unwrap() error { return &e.InvalidError }

func knowledgeError(p KnowledgeProblem) error {
	return &KnowledgeError{InvalidError: InvalidError{Msg: knowledgeProblemText[p]}, Problem: p}
}

// CheckKnowledge validates and normalises one knowledge item: the kind
// defaults to Q&A, text fields are trimmed, the language lower-cased, and
// the id cleared (the store assigns ids). A failure is a *KnowledgeError.
func CheckKnowledge(e KnowledgeEntry) (KnowledgeEntry, error) {
	e.ID, e.URL = "", ""
	e.Lang = strings.ToLower(strings.TrimSpace(e.Lang))
	if e.Lang != "" && !i18n.Known(e.Lang) {
		return e, knowledgeError(KnowledgeBadLang)
	}
	all := e.Question + e.Answer + e.Title + e.Text
	if !utf8.ValidString(all) {
		return e, knowledgeError(KnowledgeNotUTF8)
	}
	if strings.IndexByte(all, 0) >= 0 {
		// PostgreSQL cannot store them, and SQLite counts a text's
		// characters only up to the first (the agent's bound counts them).
		return e, knowledgeError(KnowledgeNUL)
	}
	switch e.Kind {
	case "", KindQA:
		e.Kind = KindQA
		e.Question, e.Answer = strings.TrimSpace(e.Question), strings.TrimSpace(e.Answer)
		switch {
		case e.Question == "" || e.Answer == "":
			return e, knowledgeError(KnowledgeQAMissing)
		case e.Title != "" || e.Text != "":
			return e, knowledgeError(KnowledgeQAFields)
		case utf8.RuneCountInString(e.Question) > MaxEntryChars || utf8.RuneCountInString(e.Answer) > MaxEntryChars:
			return e, knowledgeError(KnowledgeQALong)
		}
	case KindDocument:
		e.Title, e.Text = strings.TrimSpace(e.Title), strings.TrimSpace(e.Text)
		switch {
		case e.Text == "":
			return e, knowledgeError(KnowledgeDocMissing)
		case e.Question != "" || e.Answer != "":
			return e, knowledgeError(KnowledgeDocFields)
		case utf8.RuneCountInString(e.Title) > MaxTitleChars || utf8.RuneCountInString(e.Text) > MaxDocumentChars:
			return e, knowledgeError(KnowledgeDocLong)
		}
	default:
		return e, knowledgeError(KnowledgeBadKind)
	}
	return e, nil
}
