// Package i18n holds Parley's message catalogues, one file per language
// (en.json, ro.json, ru.json beside this file: flat key → text), and the
// one list of languages Parley speaks. The dashboard, the widget (its
// build bakes the widget.* texts in), the agent's fixed replies, handoff's
// default message, the LLM prompt's language names and every check of a
// "lang" field read from here, so adding a language is one new file plus
// one entry in Languages (docs/i18n.md).
//
// Texts may hold fmt verbs (%s, %d); every language has the same verbs for
// a key, which the tests check.
package i18n

import (
	"embed"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
)

// Languages are the languages Parley speaks, as lower-case ISO 639-1 codes,
// in the order the dashboard's switch lists them. English is first: it is
// the fallback of every lookup, and its catalogue names every key.
var Languages = []string{"en", "ro", "ru"}

//go:embed *.json
var files embed.FS

// catalogues holds each language's texts by key, read once at start-up.
// The files are embedded, so a broken one is a build mistake that the
// package's tests report by name; panicking keeps it from reaching a
// server silently.
var catalogues = func() map[string]map[string]string {
	cs, err := load(files, Languages)
	if err != nil {
		panic("i18n: " + err.Error())
	}
	return cs
}()

// load reads the catalogues of langs from fsys and adds the derived keys:
// "lang.<code>" names a language in its own words, the same in every
// catalogue (a language switch lists each language as its speakers write
// it), so that a new language's file is enough.
func load(fsys fs.FS, langs []string) (map[string]map[string]string, error) {
	cs := make(map[string]map[string]string, len(langs))
	for _, l := range langs {
		c, err := parse(fsys, l)
		if err != nil {
			return nil, err
		}
		cs[l] = c
	}
	for _, l := range langs {
		native := cs[l]["language.native"]
		for _, c := range cs {
			c["lang."+l] = native
		}
	}
	return cs, nil
}

// Catalogue returns the texts of lang as its file has them, without the
// derived "lang.<code>" keys, in a map of the caller's own. The widget
// build and tests use it; everything else calls Text.
func Catalogue(lang string) (map[string]string, error) { return parse(files, lang) }

func parse(fsys fs.FS, lang string) (map[string]string, error) {
	b, err := fs.ReadFile(fsys, lang+".json")
	if err != nil {
		return nil, err
	}
	var c map[string]string
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, &parseError{lang, err}
	}
	return c, nil
}

type parseError struct {
	lang string
	err  error
}

func (e *parseError) Error() string { return e.lang + ".json: " + e.err.Error() }
func (e *parseError) Unwrap() error { return e.err }

// Known reports whether lang is one of Languages (exactly: "ro", not
// "RO" or "ro-RO"; see Base).
func Known(lang string) bool { return slices.Contains(Languages, lang) }

// Base reduces a language tag to its base language when Parley speaks it:
// "ro-RO", "RU" and "en_GB" give "ro", "ru" and "en". ok is false for a
// language Parley does not speak, and for a tag with spaces (" ro"): the
// widget API refuses those rather than guess.
func Base(tag string) (lang string, ok bool) {
	base, _, _ := strings.Cut(strings.ToLower(tag), "-")
	base, _, _ = strings.Cut(base, "_")
	return base, Known(base)
}

// Text returns the text of key in lang. A language Parley does not speak,
// or a key its catalogue lacks, gets the English text; a key English lacks
// gets the key itself, so a mistake shows on the page instead of an empty
// space (the tests catch both).
func Text(lang, key string) string {
	if s, ok := catalogues[lang][key]; ok {
		return s
	}
	if s, ok := catalogues["en"][key]; ok {
		return s
	}
	return key
}

// Has reports whether key exists (in English, which names every key).
func Has(key string) bool {
	_, ok := catalogues["en"][key]
	return ok
}

// EnglishName is lang's name in English ("Romanian"), for text read by
// machines and people who may not read the language, like the LLM prompt.
func EnglishName(lang string) string { return Text(lang, "language.english") }

// List is Languages joined for a message: "en, ro, ru".
func List() string { return strings.Join(Languages, ", ") }
