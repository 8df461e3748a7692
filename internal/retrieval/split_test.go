package retrieval

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitDocument(t *testing.T) {
	long := strings.Repeat("Parcels travel by road and are handed over in person. ", 30) // ~1,600 characters
	tests := []struct {
		name, title, text string
		want              []Passage
	}{
		{
			name:  "headings and paragraphs",
			title: "Help",
			text: "Intro paragraph that is long enough to stand on its own as a passage, " +
				"because it explains what this help page is about and who it is meant for in some detail.\n\n" +
				"# Shipping\n\nWe ship in 2 days.\n\n## Abroad ##\n\nAbroad it takes a week or a little more, depending on the country " +
				"and on the customs office, which we cannot speed up; we send the tracking number as soon as we have it.\r\n\r\n" +
				"Second paragraph about abroad shipping with enough words in it to stay a passage of its own when merging, " +
				"since it is longer than the merge limit of one hundred and sixty characters.",
			want: []Passage{
				{"Help", "Intro paragraph that is long enough to stand on its own as a passage, because it explains what this help page is about and who it is meant for in some detail."},
				{"Shipping", "We ship in 2 days."},
				{"Abroad", "Abroad it takes a week or a little more, depending on the country and on the customs office, which we cannot speed up; we send the tracking number as soon as we have it."},
				{"Abroad", "Second paragraph about abroad shipping with enough words in it to stay a passage of its own when merging, since it is longer than the merge limit of one hundred and sixty characters."},
			},
		},
		{
			name: "tiny paragraphs merge",
			text: "We accept:\n\n- cards\n- PayPal\n\nThat is all.",
			want: []Passage{{"", "We accept:\n\n- cards\n- PayPal\n\nThat is all."}},
		},
		{
			name:  "setext heading, rule and fence",
			title: "T",
			text:  "Returns\n=======\nSend it back.\n\n---\n\n```\n# not a heading\n\nstill code\n```",
			want:  []Passage{{"Returns", "Send it back.\n\n```\n# not a heading\n\nstill code\n```"}},
		},
		{
			name: "hashtag is not a heading",
			text: "#sale today",
			want: []Passage{{"", "#sale today"}},
		},
		{name: "empty", title: "Only a title", text: "\n\n# Heading without text\n", want: nil},
	}
	for _, tt := range tests {
		got := SplitDocument(tt.title, tt.text)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d passages %q, want %d", tt.name, len(got), got, len(tt.want))
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: passage %d = %q, want %q", tt.name, i, got[i], tt.want[i])
			}
		}
	}

	// A long paragraph is cut at sentence ends into pieces of at most
	// maxPassage characters that are parts of the text.
	got := SplitDocument("", long)
	if len(got) < 2 {
		t.Fatalf("long paragraph gave %d passages", len(got))
	}
	for _, p := range got {
		if n := utf8.RuneCountInString(p.Text); n > maxPassage || !strings.HasSuffix(p.Text, ".") || !strings.Contains(long, p.Text) {
			t.Errorf("passage of %d characters not cut at a sentence end: %q", n, p.Text)
		}
	}
	// Without sentence ends it is cut between words.
	words := strings.Repeat("слово ", 400)
	for _, p := range SplitDocument("", words) {
		if n := utf8.RuneCountInString(p.Text); n > maxPassage || strings.HasPrefix(p.Text, "лово") {
			t.Errorf("passage of %d characters cut inside a word: %q…", n, p.Text[:20])
		}
	}
}
