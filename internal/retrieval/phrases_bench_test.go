package retrieval

import "testing"

// BenchmarkPhrases is the phrase rules' share of analysing a typical
// visitor message.
func BenchmarkPhrases(b *testing.B) {
	tokens := tokenize("I bought a lamp two weeks ago, never used it, I just don't like the colour. Can I send it back?")
	buf := make([]token, len(tokens))
	for b.Loop() {
		copy(buf, tokens)
		rewritePhrases(buf, "en")
		rewritePhrases(buf, "ru")
	}
}
