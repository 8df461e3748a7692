package questions

import "testing"

// BenchmarkGroupAll5000 groups 5,000 questions in three languages (see
// workload). Numbers in docs/agent.md, "Grouping questions".
func BenchmarkGroupAll5000(b *testing.B) {
	items := workload(b, 5000, 1)
	b.ResetTimer()
	for b.Loop() {
		GroupAll(items)
	}
}

// BenchmarkGroupAll5000SharedWord is the index's worst case: every question
// also names the same subject ("delivery: …"), so every question is a
// candidate of every other of its language.
func BenchmarkGroupAll5000SharedWord(b *testing.B) {
	items := workload(b, 5000, 1)
	prefix := map[string]string{"en": "delivery: ", "ro": "livrare: ", "ru": "доставка: "}
	for i := range items {
		items[i].Text = prefix[items[i].Lang] + items[i].Text
	}
	b.ResetTimer()
	for b.Loop() {
		GroupAll(items)
	}
}

// BenchmarkGroupAll5000Long groups 5,000 long messages: three questions of
// the workload each, of any language, the language left to the text.
func BenchmarkGroupAll5000Long(b *testing.B) {
	items := longWorkload(b, 5000)
	b.ResetTimer()
	for b.Loop() {
		GroupAll(items)
	}
}
