package main

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsListener: PARLEY_METRICS_ADDR serves /metrics on a listener of
// its own, and the main listener then answers /metrics with the 404 of an
// unknown path, even to a loopback client.
func TestMetricsListener(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // free again for the server

	a := start(t, filepath.Join(t.TempDir(), "p.db"), map[string]string{"PARLEY_DEMO": "false", "PARLEY_METRICS_ADDR": addr})
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
	if code, body := get("http://" + addr + "/metrics"); code != 200 || !strings.Contains(body, "parley_longpolls_waiting") {
		t.Fatalf("metrics listener: %d %q", code, body)
	}
	if code, body := get(a.base + "/metrics"); code != http.StatusNotFound || !strings.Contains(body, `"error"`) {
		t.Fatalf("the main listener answered /metrics with %d %q", code, body)
	}
}
