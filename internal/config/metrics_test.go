package config

import (
	"io"
	"strings"
	"testing"
)

func TestMetricsAddr(t *testing.T) {
	t.Parallel()
	c, err := Load(nil, env(map[string]string{"PARLEY_METRICS_ADDR": "10.0.0.5:9090"}), io.Discard)
	if err != nil || c.MetricsAddr != "10.0.0.5:9090" {
		t.Fatalf("from the environment: %q %v", c.MetricsAddr, err)
	}
	c, err = Load([]string{"--metrics-addr", "127.0.0.1:9100"}, env(map[string]string{"PARLEY_METRICS_ADDR": "10.0.0.5:9090"}), io.Discard)
	if err != nil || c.MetricsAddr != "127.0.0.1:9100" {
		t.Fatalf("the flag wins: %q %v", c.MetricsAddr, err)
	}
	if c, err := Load(nil, env(nil), io.Discard); err != nil || c.MetricsAddr != "" {
		t.Fatalf("default: %q %v", c.MetricsAddr, err)
	}
	if _, err := Load([]string{"--metrics-addr", "9090"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "metrics address") {
		t.Fatalf("a port without a host: %v", err)
	}
}
