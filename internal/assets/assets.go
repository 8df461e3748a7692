// Package assets serves embedded static files (the widget scripts, the demo
// stylesheet, the landing page) with the work done once at start-up: each
// File holds its body, its gzip and brotli forms and an ETag for each form,
// so a request costs a header check and one write.
package assets

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// File is one static response. Build it with NewFile; it is safe for
// concurrent use because nothing changes after construction except the
// option fields, which must be set before the File starts serving.
type File struct {
	// AllowAnyOrigin adds "Access-Control-Allow-Origin: *". It is off by
	// default: the server decides CORS per route, and only resources meant to
	// be read cross-origin should carry it.
	AllowAnyOrigin bool

	name         string
	contentType  string
	cacheControl string
	body         []byte
	etag         string
	gz, br       []byte // nil when compressing does not make the body smaller
	gzETag       string
	brETag       string
}

// NewFile prepares name for serving. body must not be modified afterwards.
// cacheControl is sent as is; an empty value sends no Cache-Control header.
func NewFile(name, contentType string, body []byte, cacheControl string) *File {
	sum := sha256.Sum256(body)
	// Half the digest is plenty to tell versions of one file apart, and keeps
	// the header short.
	tag := hex.EncodeToString(sum[:16])
	f := &File{
		name:         name,
		contentType:  contentType,
		cacheControl: cacheControl,
		body:         body,
		etag:         `"` + tag + `"`,
	}
	c := compressed(sum, body)
	// A strong ETag names one exact byte sequence, so each encoded form needs
	// its own tag; caches would otherwise mix the forms up.
	if c.gz != nil {
		f.gz, f.gzETag = c.gz, `"`+tag+`-gz"`
	}
	if c.br != nil {
		f.br, f.brETag = c.br, `"`+tag+`-br"`
	}
	return f
}

// Name returns the name given to NewFile, for logs and route listings.
func (f *File) Name() string { return f.name }

// ServeHTTP answers GET and HEAD with the file, in the encoding the client
// prefers among brotli, gzip and none, and 304 when the client's copy is
// current.
func (f *File) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = w.Write([]byte(`{"error":"method not allowed"}` + "\n"))
		return
	}

	body, etag, coding := f.body, f.etag, negotiate(r.Header.Values("Accept-Encoding"), f.br != nil, f.gz != nil)
	switch coding {
	case "br":
		body, etag = f.br, f.brETag
	case "gzip":
		body, etag = f.gz, f.gzETag
	}

	// These go on 304s as well: RFC 9110 asks for the headers a 200 would
	// carry that affect caching, so a revalidated copy stays fresh. Vary is
	// added, not set, so a Vary from the server's middleware (Origin) stays.
	h.Add("Vary", "Accept-Encoding")
	h.Set("ETag", etag)
	if f.cacheControl != "" {
		h.Set("Cache-Control", f.cacheControl)
	}
	if f.AllowAnyOrigin {
		h.Set("Access-Control-Allow-Origin", "*")
	}

	if inm := r.Header.Values("If-None-Match"); len(inm) > 0 && etagListMatches(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}

	h.Set("Content-Type", f.contentType)
	// Scripts and styles are refused by browsers under nosniff when the type
	// is wrong, which turns a misconfiguration into a visible error instead
	// of content sniffing.
	h.Set("X-Content-Type-Options", "nosniff")
	if coding != "" {
		h.Set("Content-Encoding", coding)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// negotiate picks the encoding to send from the Accept-Encoding field
// values: "br", "gzip" or "" (identity), among the forms the file has. The
// highest weight wins, brotli on a tie since it is smaller; an explicit
// entry wins over "*"; q=0 means "not acceptable" (RFC 9110, 12.5.3).
// Identity is acceptable by default, so only an explicit, higher preference
// for it keeps us from compressing.
func negotiate(values []string, haveBr, haveGzip bool) string {
	brQ, gzipQ, starQ, identityQ := -1.0, -1.0, -1.0, -1.0
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(item, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			q, ok := qValue(params)
			if !ok {
				// A malformed entry says nothing reliable; skip it rather
				// than guess.
				continue
			}
			switch coding {
			case "br":
				brQ = max(brQ, q)
			case "gzip", "x-gzip":
				gzipQ = max(gzipQ, q)
			case "*":
				starQ = max(starQ, q)
			case "identity":
				identityQ = max(identityQ, q)
			}
		}
	}
	if brQ < 0 {
		brQ = starQ
	}
	if gzipQ < 0 {
		gzipQ = starQ
	}
	if !haveBr {
		brQ = 0
	}
	if !haveGzip {
		gzipQ = 0
	}
	best, q := "br", brQ
	if gzipQ > brQ {
		best, q = "gzip", gzipQ
	}
	if q <= 0 || identityQ > q {
		return ""
	}
	return best
}

// qValue extracts the weight from the parameters after a coding. No q
// parameter means 1. ok is false for weights outside the grammar's 0..1.
func qValue(params string) (q float64, ok bool) {
	q = 1
	for p := range strings.SplitSeq(params, ";") {
		name, val, found := strings.Cut(p, "=")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || f < 0 || f > 1 {
			return 0, false
		}
		q = f
	}
	return q, true
}

// etagListMatches reports whether an If-None-Match field (possibly split over
// several header lines) names etag, using the weak comparison RFC 9110
// prescribes for If-None-Match: a W/ prefix is ignored. "*" matches anything,
// since the file always exists.
func etagListMatches(values []string, etag string) bool {
	for _, v := range values {
		s := v
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			if s[0] == '*' {
				return true
			}
			s = strings.TrimPrefix(s, "W/")
			if s == "" || s[0] != '"' {
				// Not an entity-tag: the rest of this line cannot be parsed
				// reliably, so it cannot produce a match.
				break
			}
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				break
			}
			if s[:end+2] == etag {
				return true
			}
			s = s[end+2:]
		}
	}
	return false
}
