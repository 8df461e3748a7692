package i18n

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// problems lists what is wrong with the catalogues of langs in fsys: a
// language without a file or a file of no language, a file that is not in
// canonical form, a key missing from a language or one English lacks, an
// empty text, a derived key written by hand, or a text whose fmt verbs are
// not English's.
func problems(fsys fs.FS, langs []string) []string {
	var out []string
	names, _ := fs.Glob(fsys, "*.json") // the pattern is valid
	for _, n := range names {
		if !slices.Contains(langs, strings.TrimSuffix(n, ".json")) {
			out = append(out, n+": not in Languages")
		}
	}
	cs := map[string]map[string]string{}
	for _, l := range langs {
		c, err := parse(fsys, l)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		cs[l] = c
		if b, _ := fs.ReadFile(fsys, l+".json"); !bytes.Equal(b, canonical(c)) {
			out = append(out, l+".json: not in canonical form (sorted keys, two-space indent, unescaped <>&, final newline)")
		}
	}
	en := cs["en"]
	if en == nil {
		return append(out, "no English catalogue")
	}
	for _, l := range langs {
		c := cs[l]
		if c == nil {
			continue
		}
		for k, s := range c {
			switch {
			case strings.HasPrefix(k, "lang."):
				out = append(out, fmt.Sprintf("%s: %q is made from language.native, not written", l, k))
			case s == "", strings.TrimSpace(s) == "" && !strings.HasPrefix(k, "number."):
				// Only number formatting has texts that are spaces (a
				// no-break space groups thousands in Russian).
				out = append(out, fmt.Sprintf("%s: %q is empty", l, k))
			}
			e, ok := en[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s: %q is not in English", l, k))
			} else if !slices.Equal(verbs(s), verbs(e)) {
				out = append(out, fmt.Sprintf("%s: %q has verbs %v, English %v", l, k, verbs(s), verbs(e)))
			}
		}
		for k := range en {
			if _, ok := c[k]; !ok {
				out = append(out, fmt.Sprintf("%s: %q is missing", l, k))
			}
		}
	}
	slices.Sort(out)
	return out
}

var verb = regexp.MustCompile(`%[-+# 0]*(\[\d+\])?[0-9.*]*[a-zA-Z%]`)

// verbs are the fmt verbs of s, sorted: the order may differ between
// languages only when the verbs are the same kind.
func verbs(s string) []string {
	v := verb.FindAllString(s, -1)
	slices.Sort(v)
	return v
}

// canonical is how a catalogue file is written: what json.MarshalIndent
// gives, without escaping <, > and &. One form keeps diffs between
// languages line by line.
func canonical(c map[string]string) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	_ = e.Encode(c) // a map of strings always encodes
	return b.Bytes()
}

func TestCataloguesAreComplete(t *testing.T) {
	t.Parallel()
	for _, p := range problems(files, Languages) {
		t.Error(p)
	}
}

// copyOf is the embedded catalogues in a map file system, to change.
func copyOf(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, l := range Languages {
		b, err := files.ReadFile(l + ".json")
		if err != nil {
			t.Fatal(err)
		}
		m[l+".json"] = &fstest.MapFile{Data: b}
	}
	return m
}

// The recipe of docs/i18n.md: a copy of en.json named xx.json, translated,
// plus "xx" in Languages, is a complete fourth language.
func TestAddingALanguageIsOneFileAndOneLine(t *testing.T) {
	t.Parallel()
	m := copyOf(t)
	en, _ := Catalogue("en")
	xx := map[string]string{}
	for k, s := range en {
		xx[k] = "xx " + s // "translated", keeping the verbs
	}
	xx["language.native"] = "Xxish"
	m["xx.json"] = &fstest.MapFile{Data: canonical(xx)}
	langs := append(slices.Clone(Languages), "xx")

	if p := problems(m, langs); len(p) > 0 {
		t.Fatalf("a complete new language has problems: %v", p)
	}
	cs, err := load(m, langs)
	if err != nil {
		t.Fatal(err)
	}
	if cs["ro"]["lang.xx"] != "Xxish" || cs["xx"]["lang.ro"] != "Română" {
		t.Errorf("the switch names: lang.xx in ro %q, lang.ro in xx %q", cs["ro"]["lang.xx"], cs["xx"]["lang.ro"])
	}
	// The file alone, without the line, is refused.
	if p := problems(m, Languages); !slices.Contains(p, "xx.json: not in Languages") {
		t.Errorf("an unlisted file: %v", p)
	}
	// The line alone, without the file, is refused.
	delete(m, "xx.json")
	if p := problems(m, langs); len(p) == 0 {
		t.Error("a listed language without a file has no problems")
	}
}

// Each way a catalogue can go wrong is reported.
func TestProblemsFound(t *testing.T) {
	t.Parallel()
	en, _ := Catalogue("en")
	var withVerb string // the first key whose text has one verb, %s
	for _, k := range slices.Sorted(maps.Keys(en)) {
		if slices.Equal(verbs(en[k]), []string{"%s"}) {
			withVerb = k
			break
		}
	}
	if withVerb == "" {
		t.Fatalf("no English text with one %%s verb to test with")
	}
	for name, tt := range map[string]struct {
		change func(ro map[string]string)
		want   string
	}{
		"missing":  {func(ro map[string]string) { delete(ro, "form.save") }, `ro: "form.save" is missing`},
		"extra":    {func(ro map[string]string) { ro["form.extra"] = "Extra" }, `ro: "form.extra" is not in English`},
		"empty":    {func(ro map[string]string) { ro["form.save"] = " " }, `ro: "form.save" is empty`},
		"verbs":    {func(ro map[string]string) { ro[withVerb] = "fără verb" }, fmt.Sprintf(`ro: %q has verbs [], English [%%s]`, withVerb)},
		"verbkind": {func(ro map[string]string) { ro[withVerb] = strings.Replace(ro[withVerb], "%s", "%d", 1) }, fmt.Sprintf(`ro: %q has verbs [%%d], English [%%s]`, withVerb)},
		"derived":  {func(ro map[string]string) { ro["lang.ro"] = "Română" }, `ro: "lang.ro" is made from language.native, not written`},
	} {
		m := copyOf(t)
		ro, _ := Catalogue("ro")
		tt.change(ro)
		m["ro.json"] = &fstest.MapFile{Data: canonical(ro)}
		if p := problems(m, Languages); !slices.Contains(p, tt.want) {
			t.Errorf("%s: problems %v, want %q among them", name, p, tt.want)
		}
	}
	m := copyOf(t)
	m["ru.json"].Data = bytes.ReplaceAll(m["ru.json"].Data, []byte("\n  "), []byte("\n    "))
	if p := problems(m, Languages); len(p) != 1 || !strings.HasPrefix(p[0], "ru.json: not in canonical form") {
		t.Errorf("a re-indented file: %v", p)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ lang, key, want string }{
		{"ro", "form.save", "Salvează"},
		{"ru", "form.save", "Сохранить"},
		{"de", "form.save", "Save"},            // a language Parley does not speak: English
		{"", "form.save", "Save"},              // none: English
		{"ro", "no.such.key", "no.such.key"},   // a mistake shows itself
		{"en", "lang.ru", "Русский"},           // derived: the native name
		{"ru", "lang.ro", "Română"},            // in every language
		{"ro", "language.english", "Romanian"}, // for the LLM prompt
	} {
		if got := Text(tt.lang, tt.key); got != tt.want {
			t.Errorf("Text(%q, %q) = %q, want %q", tt.lang, tt.key, got, tt.want)
		}
	}
	if !Has("lang.ro") || !Has("form.save") || Has("no.such.key") {
		t.Error("Has")
	}
	if EnglishName("ru") != "Russian" {
		t.Errorf("EnglishName(ru) = %q", EnglishName("ru"))
	}
}

func TestKnownAndBase(t *testing.T) {
	t.Parallel()
	for _, l := range Languages {
		if !Known(l) {
			t.Errorf("Known(%q) = false", l)
		}
	}
	for _, l := range []string{"", "RO", "ro-RO", "de", "english"} {
		if Known(l) {
			t.Errorf("Known(%q) = true", l)
		}
	}
	for tag, want := range map[string]string{"ro-RO": "ro", "RU": "ru", "en_GB": "en"} {
		if got, ok := Base(tag); !ok || got != want {
			t.Errorf("Base(%q) = %q, %v; want %q", tag, got, ok, want)
		}
	}
	for _, tag := range []string{"", "de-DE", "r", " ro", "-ro"} {
		if _, ok := Base(tag); ok {
			t.Errorf("Base(%q) is spoken", tag)
		}
	}
	if List() != "en, ro, ru" {
		t.Errorf("List() = %q", List())
	}
}
