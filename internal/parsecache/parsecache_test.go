package parsecache

import (
	"strconv"
	"sync"
	"testing"
)

func TestGetParsesOncePerValue(t *testing.T) {
	calls := map[string]int{}
	var mu sync.Mutex
	c := New(3, func(b []byte) int {
		mu.Lock()
		calls[string(b)]++
		mu.Unlock()
		n, _ := strconv.Atoi(string(b))
		return n
	})
	raw := []byte("41")
	for range 5 {
		if got := c.Get(raw); got != 41 {
			t.Fatalf("Get = %d", got)
		}
	}
	raw[1] = '2' // the caller's bytes change: the cache kept its own key
	if got := c.Get(raw); got != 42 {
		t.Fatalf("after the bytes changed: %d, want 42", got)
	}
	if got := c.Get([]byte("41")); got != 41 || calls["41"] != 1 || calls["42"] != 1 {
		t.Fatalf("Get = %d, calls %v: want one parse per value", got, calls)
	}
	// Full at 3: the fourth value starts it again.
	c.Get([]byte("1"))
	c.Get([]byte("2"))
	if len(c.m) > 3 {
		t.Fatalf("%d entries, bound 3", len(c.m))
	}
}

func TestConcurrentGet(t *testing.T) {
	c := New(8, func(b []byte) string { return "v" + string(b) })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 1000 {
				k := strconv.Itoa((i + j) % 20)
				if got := c.Get([]byte(k)); got != "v"+k {
					t.Errorf("Get(%s) = %s", k, got)
					return
				}
			}
		})
	}
	wg.Wait()
}
