package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// shotDeskViewport is shotDeskWith for what the viewport shows: a modal
// dialog's backdrop covers the viewport only, so a capture of the whole
// document would show the page below it undimmed.
func shotDeskViewport(t *testing.T, p *page, name, probes string) {
	t.Helper()
	checkAxe(t, p, name)
	file := "dashboard-" + name + ".png"
	b := recompress(t, capture(p, file, false, probes))
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), file), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
