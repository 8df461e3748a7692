package llm

import (
	"strings"
	"testing"
)

// The streamed preview never shows a citation or the no-answer marker,
// however the model's text is cut into chunks, and text that only looks
// like the start of one is shown once it cannot be.
func TestMarkerFilter(t *testing.T) {
	tests := []struct {
		chunks []string
		want   string
	}{
		{[]string{"Delivery takes 3 days[1]. Returns are free[2, 3]."}, "Delivery takes 3 days. Returns are free."},
		{[]string{"Delivery takes 3 days[", "1", "]. Returns are free[2", ", 3", "]."}, "Delivery takes 3 days. Returns are free."},
		{[]string{"[NO_", "ANSWER] I do not know that."}, "I do not know that."},
		{[]string{"[no answer]", " Sorry."}, "Sorry."},
		{[]string{"Sizes [S, M", ", L] and [", "x] fit"}, "Sizes [S, M, L] and [x] fit"},
		{[]string{"[1234] is an order number"}, "[1234] is an order number"},
		{[]string{"a [", "N", "O", "T", " a marker]"}, "a [NOT a marker]"},
	}
	for _, tt := range tests {
		var b strings.Builder
		f := &markerFilter{out: func(s string) { b.WriteString(s) }}
		for _, c := range tt.chunks {
			f.write(c)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("%q: shown %q, want %q", tt.chunks, got, tt.want)
		}
	}
}
