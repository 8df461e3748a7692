// Package dashboard holds the dashboard's templates, stylesheet and script,
// embedded so the binary is the whole deployment. The handlers are in
// internal/dashboard.
package dashboard

import "embed"

// FS holds templates/ (layout, partials, pages) and static/ (served at
// /static/).
//
//go:embed templates static
var FS embed.FS
