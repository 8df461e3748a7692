//go:build !amd64

package vecmath

func dot(a, b []float32) float32 { return dotGo(a, b) }
