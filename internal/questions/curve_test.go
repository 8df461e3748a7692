package questions

import (
	"os"
	"testing"
)

// TestTuningCurve prints precision and recall on both tuning sets for a
// range of thresholds (QUESTIONS_CURVE=1), to choose the threshold on.
func TestTuningCurve(t *testing.T) {
	if os.Getenv("QUESTIONS_CURVE") == "" {
		t.Skip("QUESTIONS_CURVE=1 prints the tuning set's precision and recall per threshold")
	}
	sets, more := loadPairs(t, "tuning.txt"), loadPairs(t, "tuning2.txt")
	for _, lang := range []string{"en", "ro", "ru"} {
		type sp struct {
			sim  float64
			same bool
		}
		var sims []sp
		for _, p := range append(sets[lang], more[lang]...) {
			sims = append(sims, sp{similarityOf(Item{p.a, lang}, Item{p.b, lang}), p.same})
		}
		for th := 0.60; th <= 0.86; th += 0.02 {
			var s score
			for _, x := range sims {
				s.add(x.same, x.sim >= th)
			}
			t.Logf("%s %.2f: %v", lang, th, s)
		}
	}
}
