package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randomVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// Dot, whichever way this CPU takes, and the portable dotGo agree with a
// float64 sum, for lengths on and off the 32- and 8-element steps; b may
// be longer than a.
func TestDot(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 40, 63, 768, 1023, 1536} {
		a, b := randomVec(r, n), randomVec(r, n+5)
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		tol := 1e-4 * math.Max(1, math.Sqrt(float64(n)))
		for name, f := range map[string]func(a, b []float32) float32{"Dot": Dot, "dotGo": dotGo} {
			if got := f(a, b); math.Abs(float64(got)-want) > tol {
				t.Errorf("%s of %d = %v, want %v", name, n, got, want)
			}
		}
	}
}

func TestDotShortB(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("Dot with b shorter than a did not panic")
		}
	}()
	Dot(make([]float32, 8), make([]float32, 7))
}

// BenchmarkDot768: one comparison of hybrid retrieval's.
func BenchmarkDot768(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x, y := randomVec(r, 768), randomVec(r, 768)
	var sink float32
	b.Run("Dot", func(b *testing.B) {
		for b.Loop() {
			sink += Dot(x, y)
		}
	})
	b.Run("dotGo", func(b *testing.B) {
		for b.Loop() {
			sink += dotGo(x, y)
		}
	})
	_ = sink
}
