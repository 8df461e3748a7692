// Package web holds what the server sends to browsers: the embed script,
// the demo and landing pages and their stylesheet. They are embedded so the
// binary is the whole deployment and `go test` works on a fresh clone.
//
// The widget's sources are in widget/; go generate minifies them into
// dist/, which is committed, so building Parley needs neither Node nor a
// generate step (see docs/widget.md).
package web

import (
	"embed"
	"html/template"
	"io/fs"
	"path"
)

//go:generate go run ./internal/widgetbuild/widgetgen
//go:generate go run ./internal/favicon/favicongen

// FS holds the pages and their stylesheet.
//
//go:embed demo.html demo.css
var FS embed.FS

// dist is the minified widget: widget.js and one widget-ui.<hash>.js.
//
//go:embed dist
var dist embed.FS

// The static files, for callers that want the bytes directly.
var (
	// WidgetJS is the loader, served as /widget.js.
	//go:embed dist/widget.js
	WidgetJS []byte
	//go:embed demo.css
	DemoCSS []byte
	// Favicon is served as /favicon.ico: Parley's icon, drawn by
	// internal/favicon (go generate writes it).
	//go:embed favicon.ico
	Favicon []byte
)

// WidgetUI is the chat UI chunk the loader imports on first open, and
// WidgetUIName its file name ("widget-ui.<hash>.js"), which the loader has
// baked in. Serve it at /WidgetUIName.
var WidgetUIName, WidgetUI = uiChunk()

// WidgetUIFallback is the unversioned name of the UI chunk. A loader cached
// from before a deploy names a chunk this build does not have, and falls
// back to this one.
const WidgetUIFallback = "widget-ui.js"

func uiChunk() (string, []byte) {
	names, _ := fs.Glob(dist, "dist/widget-ui.*.js") // the pattern is valid
	if len(names) != 1 {
		// Only a hand-edited dist/ gets here; TestDistIsCurrent says how to
		// fix it.
		panic("web: dist/ must hold exactly one widget-ui.*.js; run go generate ./web")
	}
	b, err := dist.ReadFile(names[0])
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	return path.Base(names[0]), b
}

// DemoTemplate renders /demo from DemoData. Parsing at start-up turns a
// broken template into a failed start instead of a failing page.
var DemoTemplate = template.Must(template.ParseFS(FS, "demo.html"))

// DemoData is what DemoTemplate needs. An empty WidgetKey renders a notice
// instead of the widget (no demo agent on this instance).
type DemoData struct {
	WidgetKey string
}

// Cache policies. The loader is cached briefly because owners expect a new
// version to reach their visitors quickly; ETags make the revalidation
// after that cheap. The UI chunk's name changes with its content, so a
// browser may keep it for a year without asking.
const (
	CacheShort      = "public, max-age=300"
	CacheRevalidate = "no-cache"
	CacheImmutable  = "public, max-age=31536000, immutable"
)

// JSType is the Content-Type of the widget's scripts.
const JSType = "application/javascript; charset=utf-8"
