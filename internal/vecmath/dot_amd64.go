package vecmath

import "golang.org/x/sys/cpu"

// hasAVX2FMA: the assembly needs both (every x86-64 CPU since 2013–2015).
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

func dot(a, b []float32) float32 {
	if hasAVX2FMA {
		return dotAVX2(a, b)
	}
	return dotGo(a, b)
}

// dotAVX2 is in dot_amd64.s; len(b) must be at least len(a).
//
//go:noescape
func dotAVX2(a, b []float32) float32
