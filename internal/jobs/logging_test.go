package jobs

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// River's info lines are debug in Parley's log; its warnings stay.
func TestRiverLogsQuiet(t *testing.T) {
	var buf bytes.Buffer
	log := quietRiver(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})).With("component", "jobs"))
	log.Info("Producer job counts")
	log.Warn("job failed", "kind", syncKind)
	out := buf.String()
	if strings.Contains(out, "Producer job counts") {
		t.Errorf("River's info line shown at info level: %s", out)
	}
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "component=jobs") || !strings.Contains(out, "kind=source_sync") {
		t.Errorf("warning lost or its attributes dropped: %s", out)
	}
	buf.Reset()
	debug := quietRiver(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	debug.Info("River client started")
	if !strings.Contains(buf.String(), "level=DEBUG") {
		t.Errorf("want the info line at debug: %s", buf.String())
	}
}
