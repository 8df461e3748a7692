package canned

import (
	"errors"
	"strings"
	"testing"

	"parley/internal/store"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	ok := []struct{ in, shortcut, lang string }{
		{"refund", "refund", "en"},
		{"/Refund", "refund", "en"},
		{" /two-words_2 ", "two-words_2", "en"},
		{"возврат", "возврат", "ru"},
	}
	for _, c := range ok {
		got, err := Normalize(Input{Shortcut: c.in, Language: " EN ", Text: "  hi  "})
		if c.lang != "en" {
			got, err = Normalize(Input{Shortcut: c.in, Language: c.lang, Text: "  hi  "})
		}
		if err != nil || got.Shortcut != c.shortcut || got.Language != c.lang || got.Text != "hi" {
			t.Errorf("Normalize(%q) = %+v, %v", c.in, got, err)
		}
	}
	bad := []struct {
		in   Input
		want error
	}{
		{Input{Shortcut: "", Language: "en", Text: "x"}, ErrShortcut},
		{Input{Shortcut: "/", Language: "en", Text: "x"}, ErrShortcut},
		{Input{Shortcut: "two words", Language: "en", Text: "x"}, ErrShortcut},
		{Input{Shortcut: "a/b", Language: "en", Text: "x"}, ErrShortcut},
		{Input{Shortcut: strings.Repeat("a", MaxShortcut+1), Language: "en", Text: "x"}, ErrShortcut},
		{Input{Shortcut: "ok", Language: "de", Text: "x"}, ErrLanguage},
		{Input{Shortcut: "ok", Language: "", Text: "x"}, ErrLanguage},
		{Input{Shortcut: "ok", Language: "any", Text: "   "}, ErrText},
		{Input{Shortcut: "ok", Language: "any", Text: strings.Repeat("é", MaxText+1)}, ErrText},
		{Input{Shortcut: "ok", Language: "any", Text: "a\x00b"}, store.ErrBadText},
	}
	for _, c := range bad {
		if _, err := Normalize(c.in); !errors.Is(err, c.want) {
			t.Errorf("Normalize(%+v) = %v, want %v", c.in, err, c.want)
		}
	}
	if _, err := Normalize(Input{Shortcut: strings.Repeat("a", MaxShortcut), Language: "any", Text: strings.Repeat("é", MaxText)}); err != nil {
		t.Errorf("at the bounds: %v", err)
	}
}

func TestFill(t *testing.T) {
	t.Parallel()
	v := Vars{VisitorName: "Maria", VisitorEmail: "maria@example.com", OperatorName: "Ana", AgentName: "Helper"}
	cases := []struct {
		text string
		v    Vars
		want string
	}{
		{"Hi {{visitor.name}}, I am {{operator.name}} from {{agent.name}}. We write to {{ visitor.email }}.", v,
			"Hi Maria, I am Ana from Helper. We write to maria@example.com."},
		{"Hi {{visitor.name}}, welcome.", Vars{}, "Hi, welcome."},
		{"Hi {{visitor.name|there}}!", Vars{}, "Hi there!"},
		{"Hi {{visitor.name|there}}!", v, "Hi Maria!"},
		{"I am {{operator.name}}.", Vars{AgentName: "Helper"}, "I am Helper."},
		{"{{visitor.phone}} stays", v, "{{visitor.phone}} stays"},
		{"Hi {{visitor.name}}", Vars{VisitorName: "  "}, "Hi"},
		{"<b>{{visitor.name}}</b>", Vars{VisitorName: "<i>x</i>"}, "<b><i>x</i></b>"}, // escaped where shown, not here
	}
	for _, c := range cases {
		if got := Fill(c.text, c.v); got != c.want {
			t.Errorf("Fill(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestPick(t *testing.T) {
	t.Parallel()
	r := func(shortcut, lang string) store.CannedReply {
		return store.CannedReply{ID: shortcut + "/" + lang, Shortcut: shortcut, Language: lang}
	}
	all := []store.CannedReply{r("refund", "en"), r("refund", "ro"), r("refund", "any"), r("hello", "ru"), r("hello", "ro"), r("bye", "en"), r("bye", "any")}
	ids := func(rs []store.CannedReply) string {
		var out []string
		for _, x := range rs {
			out = append(out, x.ID)
		}
		return strings.Join(out, " ")
	}
	cases := map[string]string{
		"ro": "bye/any hello/ro refund/ro", // the visitor's language, then any
		"ru": "bye/any hello/ru refund/any",
		"en": "bye/en hello/ro refund/en", // none in en or any: the first by language
		"":   "bye/any hello/ro refund/any",
	}
	for lang, want := range cases {
		if got := ids(Pick(all, lang)); got != want {
			t.Errorf("Pick(%q) = %s, want %s", lang, got, want)
		}
	}
}
