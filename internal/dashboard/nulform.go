package dashboard

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

// The dashboard's input rule for NUL characters. PostgreSQL cannot store
// U+0000 and no field needs it, so a request whose path, query or posted
// form holds one is answered 400 before its handler runs, whatever the
// handler: this is the one place for the rule on the dashboard, as
// httpx.Decode is for the JSON APIs (docs/api.md).
//
// The form is looked at without being consumed: its first formPeek bytes
// are read and put back in front of the rest, so each handler still parses
// it with its own size limit (a handler's http.MaxBytesReader counts the
// bytes put back too). A form that fits in formPeek — every form but a
// pasted or uploaded document — is decided before the handler runs; in a
// longer one a NUL past formPeek makes the body fail to read, which the
// handlers of those forms (readAgentForm) answer with 400 too.

// formPeek is how much of a form body is read ahead to decide on it.
const formPeek = 64 << 10

// errNUL is the read error of a long form body with a NUL in it.
var errNUL = errors.New("the form holds a NUL character")

// RefuseNUL wraps a dashboard route (server.page does it for all of
// them): see above.
func (d *Dashboard) RefuseNUL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.IndexByte(r.URL.Path, 0) >= 0 || hasNULEscape(r.URL.RawQuery) || !formOK(r) {
			d.render(w, r, http.StatusBadRequest, "error", view{Title: "error.bad", Error: "error.nul"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hasNULEscape reports whether URL-encoded text decodes to a NUL: "%00",
// or a raw NUL byte.
func hasNULEscape(s string) bool {
	return strings.Contains(s, "%00") || strings.IndexByte(s, 0) >= 0
}

// formOK reads ahead in a posted form (see above) and reports whether it
// is free of NUL as far as it can tell before the handler runs; r.Body
// then reads the same bytes as before.
func formOK(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/x-www-form-urlencoded" && ct != "multipart/form-data" {
		return true
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, formPeek+1))
	whole := err == nil && len(head) <= formPeek
	rest := io.Reader(r.Body)
	headOK := true
	if !whole {
		// Decided while the handler reads the rest; the head now.
		g := &nulGuard{r: r.Body, encoded: ct != "multipart/form-data"}
		headOK = !g.scan(head)
		rest = g
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), rest), r.Body}
	if !whole {
		return headOK
	}
	if ct == "multipart/form-data" {
		return multipartOK(head, params["boundary"])
	}
	return !hasNULEscape(string(head))
}

// multipartOK looks at every part of a whole multipart form: its name, its
// file name (which may be RFC 2231-encoded, with %00 for a NUL) and its
// content. A form it cannot parse is left to its handler.
func multipartOK(body []byte, boundary string) bool {
	if boundary == "" {
		return true
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := mr.NextPart()
		if err != nil {
			return true // the end, or a malformed form its handler refuses
		}
		content, err := io.ReadAll(p)
		if err != nil {
			return true
		}
		if strings.IndexByte(p.FormName(), 0) >= 0 || strings.IndexByte(p.FileName(), 0) >= 0 || bytes.IndexByte(content, 0) >= 0 {
			return false
		}
	}
}

// nulGuard reads a long form body and fails with errNUL at a NUL (a raw
// byte, or %00 in a URL-encoded form), so that the handler's parse fails.
type nulGuard struct {
	r       io.Reader
	encoded bool
	pct     int // "%" or "%0" seen at the end of the last read
}

func (g *nulGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if g.scan(p[:n]) {
		return 0, errNUL
	}
	return n, err
}

// scan reports whether p, following what was scanned before, holds a NUL.
func (g *nulGuard) scan(p []byte) bool {
	for _, c := range p {
		switch {
		case c == 0:
			return true
		case !g.encoded:
		case c == '%':
			g.pct = 1
		case c == '0' && g.pct > 0:
			if g.pct++; g.pct == 3 {
				return true
			}
		default:
			g.pct = 0
		}
	}
	return false
}
