package ratelimit

import (
	"context"
	"testing"
	"time"
)

func BenchmarkAllow(b *testing.B) {
	const many = 1 << 16
	run := func(b *testing.B, m *Memory, n int) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.AllowAt(ipv4(i%n), base)
			i++
		}
	}
	parallel := func(b *testing.B, m *Memory, n int) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				m.AllowAt(ipv4(i%n), base)
				i += 7919 // different goroutines drift across shards
			}
		})
	}
	b.Run("single", func(b *testing.B) { run(b, NewMemory(30, time.Minute), 1) })
	b.Run("many", func(b *testing.B) { run(b, NewMemory(30, time.Minute), many) })
	b.Run("single-parallel", func(b *testing.B) { parallel(b, NewMemory(30, time.Minute), 1) })
	b.Run("many-parallel", func(b *testing.B) { parallel(b, NewMemory(30, time.Minute), many) })
	b.Run("interface-clock", func(b *testing.B) {
		var l Limiter = NewMemory(30, time.Minute)
		ip := ipv4(1)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			l.Allow(ctx, ip)
		}
	})
}
