package agent

import (
	"slices"
	"testing"

	"parley/internal/demo"
)

// Two entries about equally good, both asked about: the agent asks which
// one the visitor means instead of guessing (the demo answered "how do I
// connect the widget" in Russian with the takeover entry, which shares
// "подключить"). A "did you mean" counts as unanswered (for the handoff
// rule) and offers a person last.
func TestKBAsksWhenTwoEntriesAreClose(t *testing.T) {
	kb := staticKB(t, demo.Knowledge)
	r := respond(t, kb, "как подключить виджет", "ru")
	want := []string{"Может ли оператор подключиться к разговору?", "Как добавить виджет чата на сайт?"}
	if r.Text != phrasesFor("ru").didYouMean || !r.Unanswered || len(r.Options) < 3 ||
		!slices.Equal(r.Options[:2], want) || r.Options[len(r.Options)-1] != "Поговорить с человеком" {
		t.Fatalf("reply %+v, want did you mean %q, then a person", r, want)
	}
}

// Questions that share words with an entry but ask what the knowledge
// lacks are not answered with that entry: "Need help with order 1234" met
// "Which languages are supported?" through help/support alone.
func TestKBDoesNotAnswerLookAlikes(t *testing.T) {
	kb := staticKB(t, demo.Knowledge)
	for _, q := range []string{"Need help with order 1234", "do you sell cars?"} {
		if r := respond(t, kb, q, "en"); !r.Unanswered {
			t.Errorf("%q answered with %q", q, r.Text)
		}
	}
	// The same agent still answers what it knows, in other words.
	for q, start := range map[string]string{
		"how do I connect the widget":               "Paste one tag",
		"what happens when an operator takes over?": "Yes. An operator can take over",
		"hi, how much does it cost?":                "Parley is free to run yourself",
	} {
		if r := respond(t, kb, q, "en"); r.Unanswered || len(r.Text) < len(start) || r.Text[:len(start)] != start {
			t.Errorf("%q: got %q, want the answer starting %q", q, r.Text, start)
		}
	}
}
