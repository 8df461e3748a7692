package domain

import "testing"

// What loading an agent (PostgreSQL reads it for every request; SQLite's
// key cache keeps it decoded) and init's public view cost.
func BenchmarkDecodeAgentConfig(b *testing.B) {
	for name, raw := range map[string]string{"rich": rich, "demo": demo} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				DecodeAgentConfig([]byte(raw))
			}
		})
	}
}

// demo is the demo agent's config (cmd/parley's seed).
const demo = `{"greeting":"Hi! Ask me anything about Parley.","color":"#2457c5","position":"right"}`

func BenchmarkPublic(b *testing.B) {
	c := DecodeAgentConfig([]byte(rich))
	b.ReportAllocs()
	for b.Loop() {
		c.Public()
	}
}
