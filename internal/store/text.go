package store

import (
	"encoding/json"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/nulchar"
)

// ErrBadText is what every store returns for text it is given, to keep or
// to look up, that holds a NUL character or is not valid UTF-8: PostgreSQL
// refuses such text (SQLSTATE 22021; \u0000 in jsonb, 22P05), and SQLite,
// which would keep it, refuses it the same way, so that both databases
// answer alike. It is an *domain.InvalidError, so the APIs answer 400.
// Input is refused before it gets here (httpx.Decode, the dashboard's form
// check); this is the last line.
var ErrBadText error = &domain.InvalidError{Msg: "text must be valid UTF-8 without NUL characters"}

// CheckText returns ErrBadText when any of texts holds a NUL or is not
// valid UTF-8.
func CheckText(texts ...string) error {
	for _, t := range texts {
		if nulchar.In(t) || !utf8.ValidString(t) {
			return ErrBadText
		}
	}
	return nil
}

// CheckConfig is CheckText for an agent's config, whose JSON strings may
// also spell a NUL as \u0000.
func CheckConfig(raw json.RawMessage) error {
	if nulchar.InJSON(raw) || !utf8.Valid(raw) {
		return ErrBadText
	}
	return nil
}

// CheckKnowledge is CheckText for the fields of knowledge entries.
func CheckKnowledge(entries ...domain.KnowledgeEntry) error {
	for _, e := range entries {
		if err := CheckText(e.ID, e.Kind, e.Question, e.Answer, e.Title, e.Text, e.Lang); err != nil {
			return err
		}
	}
	return nil
}
