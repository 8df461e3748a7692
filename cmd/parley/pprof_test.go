package main

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
)

// TestPprof: PARLEY_PPROF_ADDR serves Go's profiler on its own loopback
// listener, and the public listener never does.
func TestPprof(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // free again for the server; loopback ports are not reused at once

	a := start(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_DEMO": "false", "PARLEY_PPROF_ADDR": addr})
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("http://" + addr + "/debug/pprof/goroutine?debug=1"); code != 200 || len(body) == 0 {
		t.Fatalf("profiler: %d %q", code, body)
	}
	if code, _ := get(a.base + "/debug/pprof/goroutine?debug=1"); code != http.StatusNotFound {
		t.Fatalf("the public listener answered the profiler's path with %d", code)
	}
}
