// Package vecmath is the arithmetic of exact vector search: the dot
// product of float32 vectors, which for vectors of length 1 is their
// cosine similarity. Hybrid retrieval compares a message with every
// passage of an agent (docs/agent.md), so this one loop is the cost of the
// vector side; on amd64 with AVX2 and FMA it runs in assembly, eight
// lanes at a time (Go does not vectorise loops), elsewhere in Go.
package vecmath

// Dot returns the dot product of a and b[:len(a)]; b must be at least as
// long as a.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	return dot(a, b)
}

// dotGo is the portable dot product, unrolled by eight into independent
// sums the CPU can overlap, on fixed-size subslices so the compiler drops
// the bounds checks: about twice the speed of the plain loop.
func dotGo(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := (*[8]float32)(a[i : i+8])
		y := (*[8]float32)(b[i : i+8])
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3) + (s4 + s5) + (s6 + s7)
}
