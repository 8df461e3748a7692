// Command widgetgen rebuilds web/dist from web/widget. Run it through
// `go generate ./web` after changing a widget source; the output is
// committed so that a fresh clone builds and runs with Go alone.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"parley/web/internal/widgetbuild"
)

func main() {
	if err := run("widget", "dist"); err != nil {
		fmt.Fprintln(os.Stderr, "widgetgen:", err)
		os.Exit(1)
	}
}

// run builds from the src directory into dist, removing UI chunks of
// earlier builds so that exactly one is embedded.
func run(src, dist string) error {
	// go generate runs in the package's directory; from anywhere else the
	// relative paths would write a dist directory in the wrong place.
	if _, err := os.Stat(filepath.Join(src, "loader.js")); err != nil {
		return errors.New("no widget/loader.js here: run it from web/, as go generate ./web does")
	}
	b, err := widgetbuild.Build(os.DirFS(src))
	if err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dist, "widget-ui.*.js"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if filepath.Base(f) != b.UIName {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dist, "widget.js"), b.Loader, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dist, b.UIName), b.UI, 0o644); err != nil {
		return err
	}
	fmt.Printf("widgetgen: dist/widget.js %d bytes, dist/%s %d bytes\n", len(b.Loader), b.UIName, len(b.UI))
	return nil
}
