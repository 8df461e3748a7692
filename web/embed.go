// Package web holds what the server sends to browsers: the embed script, the
// demo and landing pages and their stylesheet. They are embedded so the
// binary is the whole deployment and `go test` works on a fresh clone.
package web

import (
	"embed"
	"html/template"
)

// FS holds every file of this package that is served.
//
//go:embed widget.js demo.html demo.css index.html
var FS embed.FS

// The static files, for callers that want the bytes directly.
var (
	//go:embed widget.js
	WidgetJS []byte
	//go:embed demo.css
	DemoCSS []byte
	//go:embed index.html
	IndexHTML []byte
)

// DemoTemplate renders /demo from DemoData. Parsing at start-up turns a
// broken template into a failed start instead of a failing page.
var DemoTemplate = template.Must(template.ParseFS(FS, "demo.html"))

// DemoData is what DemoTemplate needs. An empty WidgetKey renders a notice
// instead of the widget (no demo agent on this instance).
type DemoData struct {
	WidgetKey string
}

// Cache policies. The widget script is cached briefly because owners expect
// a new version to reach their visitors quickly; ETags make the
// revalidation after that cheap.
const (
	CacheShort      = "public, max-age=300"
	CacheRevalidate = "no-cache"
)
