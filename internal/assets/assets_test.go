package assets

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// body is long and repetitive so that gzip is certain to shrink it.
var body = []byte(strings.Repeat("console.log('parley widget');\n", 200))

func newTestFile() *File {
	return NewFile("widget.js", "text/javascript; charset=utf-8", body, "public, max-age=300")
}

func serve(t *testing.T, f *File, method string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, "/widget.js", nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, req)
	return rec
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip reader: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}

func TestIdentityAndGzipCarryTheSameBytes(t *testing.T) {
	f := newTestFile()

	plain := serve(t, f, http.MethodGet, nil)
	if plain.Code != http.StatusOK {
		t.Fatalf("identity status = %d", plain.Code)
	}
	if ce := plain.Header().Get("Content-Encoding"); ce != "" {
		t.Errorf("identity Content-Encoding = %q, want none", ce)
	}
	if !bytes.Equal(plain.Body.Bytes(), body) {
		t.Error("identity body differs from the file")
	}

	zipped := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": "br;q=0.5, gzip;q=0.8"})
	if zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip Content-Encoding = %q", zipped.Header().Get("Content-Encoding"))
	}
	if zipped.Body.Len() >= len(body) {
		t.Errorf("gzip body %d bytes, not smaller than %d", zipped.Body.Len(), len(body))
	}
	if !bytes.Equal(gunzip(t, zipped.Body.Bytes()), body) {
		t.Error("gzip body does not decode to the file")
	}

	for name, rec := range map[string]*httptest.ResponseRecorder{"identity": plain, "gzip": zipped} {
		h := rec.Header()
		if got := h.Get("Content-Length"); got != strconv.Itoa(rec.Body.Len()) {
			t.Errorf("%s Content-Length = %s, body %d", name, got, rec.Body.Len())
		}
		if h.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("%s Content-Type = %q", name, h.Get("Content-Type"))
		}
		if h.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("%s Cache-Control = %q", name, h.Get("Cache-Control"))
		}
		if h.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s Vary = %q", name, h.Get("Vary"))
		}
		if h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s sent CORS without AllowAnyOrigin", name)
		}
	}

	pt, zt := plain.Header().Get("ETag"), zipped.Header().Get("ETag")
	if pt == zt {
		t.Errorf("both forms share ETag %s", pt)
	}
	for _, tag := range []string{pt, zt} {
		if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
			t.Errorf("ETag %q is not a quoted strong tag", tag)
		}
	}
	if !strings.HasSuffix(zt, `-gz"`) {
		t.Errorf("gzip ETag %q lacks the -gz mark", zt)
	}
}

func TestNotModified(t *testing.T) {
	f := newTestFile()
	plainTag := serve(t, f, http.MethodGet, nil).Header().Get("ETag")
	gzTag := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": "gzip"}).Header().Get("ETag")

	cases := []struct {
		name, acceptEncoding, ifNoneMatch string
		want                              int
	}{
		{"identity tag", "", plainTag, http.StatusNotModified},
		{"gzip tag", "gzip", gzTag, http.StatusNotModified},
		{"weak form", "gzip", "W/" + gzTag, http.StatusNotModified},
		{"in a list", "gzip", `"old", ` + gzTag + `, "other"`, http.StatusNotModified},
		{"star", "", "*", http.StatusNotModified},
		{"other form's tag, gzip", "gzip", plainTag, http.StatusOK},
		{"other form's tag, identity", "", gzTag, http.StatusOK},
		{"stale", "gzip", `"0123", W/"4567"`, http.StatusOK},
		{"garbage", "", "nonsense " + plainTag, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{"If-None-Match": c.ifNoneMatch}
			if c.acceptEncoding != "" {
				h["Accept-Encoding"] = c.acceptEncoding
			}
			rec := serve(t, f, http.MethodGet, h)
			if rec.Code != c.want {
				t.Fatalf("status = %d, want %d", rec.Code, c.want)
			}
			if c.want == http.StatusNotModified {
				if rec.Body.Len() != 0 {
					t.Errorf("304 has a %d-byte body", rec.Body.Len())
				}
				if rec.Header().Get("ETag") == "" || rec.Header().Get("Cache-Control") == "" {
					t.Error("304 lacks ETag or Cache-Control")
				}
			}
		})
	}
}

func TestAcceptEncoding(t *testing.T) {
	cases := []struct {
		header string
		want   string // Content-Encoding
	}{
		{"", ""},
		{"gzip", "gzip"},
		{"GZIP", "gzip"},
		{"x-gzip", "gzip"},
		{"br", "br"},
		{"BR", "br"},
		{"gzip, deflate, br", "br"}, // a tie: brotli is smaller
		{"gzip, deflate, br, zstd", "br"},
		{"br;q=0.5, gzip", "gzip"},
		{"br;q=0, gzip", "gzip"},
		{"gzip;q=0", ""},
		{"gzip; q=0.000", ""},
		{"gzip;q=0, *", "br"},
		{"br;q=0, gzip;q=0, *", ""},
		{"*", "br"},
		{"*;q=0", ""},
		{"deflate, zstd", ""},
		{"identity;q=1, gzip;q=0.5", ""},
		{"identity;q=0.2, gzip;q=0.5", "gzip"},
		{"identity;q=0.9, br;q=0.5, gzip;q=0.95", "gzip"},
		{"gzip;q=2", ""},
		{"gzip;q=abc", ""},
	}
	f := newTestFile()
	for _, c := range cases {
		rec := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": c.header})
		if got := rec.Header().Get("Content-Encoding"); got != c.want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", c.header, got, c.want)
		}
	}
}

func TestBrotli(t *testing.T) {
	f := newTestFile()
	rec := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": "gzip, br"})
	if rec.Header().Get("Content-Encoding") != "br" {
		t.Fatalf("Content-Encoding = %q", rec.Header().Get("Content-Encoding"))
	}
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(rec.Body.Bytes())))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("brotli body does not decode to the file: %v", err)
	}
	gz := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": "gzip"})
	if rec.Body.Len() >= gz.Body.Len() {
		t.Errorf("brotli %d bytes, not smaller than gzip %d", rec.Body.Len(), gz.Body.Len())
	}
	tag := rec.Header().Get("ETag")
	if !strings.HasSuffix(tag, `-br"`) || tag == gz.Header().Get("ETag") {
		t.Errorf("brotli ETag %q", tag)
	}
	if rec.Header().Get("Content-Length") != strconv.Itoa(rec.Body.Len()) {
		t.Errorf("Content-Length %s, body %d", rec.Header().Get("Content-Length"), rec.Body.Len())
	}
	// The brotli copy revalidates with its own tag only.
	if r := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": "br", "If-None-Match": tag}); r.Code != http.StatusNotModified {
		t.Errorf("revalidation with the brotli tag: %d", r.Code)
	}
	if r := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": tag}); r.Code != http.StatusOK {
		t.Errorf("gzip request with the brotli tag: %d", r.Code)
	}
}

// The compressed forms are made once per distinct body, however many Files
// are built from it.
func TestCompressedOncePerBody(t *testing.T) {
	a, b := newTestFile(), newTestFile()
	if &a.br[0] != &b.br[0] || &a.gz[0] != &b.gz[0] {
		t.Error("a second File of the same body compressed it again")
	}
}

func TestHeadHasNoBody(t *testing.T) {
	f := newTestFile()
	for _, ae := range []string{"", "gzip"} {
		get := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": ae})
		head := serve(t, f, http.MethodHead, map[string]string{"Accept-Encoding": ae})
		if head.Code != http.StatusOK {
			t.Fatalf("HEAD status = %d", head.Code)
		}
		if head.Body.Len() != 0 {
			t.Errorf("HEAD (%q) wrote %d bytes", ae, head.Body.Len())
		}
		if head.Header().Get("Content-Length") != get.Header().Get("Content-Length") ||
			head.Header().Get("ETag") != get.Header().Get("ETag") {
			t.Errorf("HEAD (%q) headers differ from GET", ae)
		}
	}
}

func TestWrongMethod(t *testing.T) {
	rec := serve(t, newTestFile(), http.MethodPost, nil)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("status = %d", rec.Code)
	}
	if allow := rec.Header().Get("Allow"); allow != "GET, HEAD" {
		t.Errorf("Allow = %q", allow)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	var e struct{ Error string }
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error != "method not allowed" {
		t.Errorf("body %q: %v", rec.Body.String(), err)
	}
}

func TestAllowAnyOrigin(t *testing.T) {
	f := newTestFile()
	f.AllowAnyOrigin = true
	if got := serve(t, f, http.MethodGet, nil).Header().Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin = %q", got)
	}
}

func TestIncompressibleBodyIsServedAsIs(t *testing.T) {
	f := NewFile("x", "text/plain", []byte("hi"), "")
	rec := serve(t, f, http.MethodGet, map[string]string{"Accept-Encoding": "gzip, br"})
	if rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != "hi" {
		t.Errorf("got encoding %q body %q", rec.Header().Get("Content-Encoding"), rec.Body.String())
	}
	if rec.Header().Get("Cache-Control") != "" {
		t.Error("empty cacheControl still sent Cache-Control")
	}
}

// TestRealServer checks the headers survive net/http's own handling (which
// may add or drop headers on HEAD and 304) end to end.
func TestRealServer(t *testing.T) {
	srv := httptest.NewServer(newTestFile())
	defer srv.Close()
	// DisableCompression stops the client from adding Accept-Encoding and
	// transparently decoding, so we see what the server sent.
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(gunzip(t, b), body) || res.ContentLength != int64(len(b)) {
		t.Errorf("gzip over the wire: %d bytes, Content-Length %d", len(b), res.ContentLength)
	}

	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation status = %d", res.StatusCode)
	}
}
