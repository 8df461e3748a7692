package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"strings"
	"testing"

	"parley/internal/store"
)

// RefuseNUL answers 400 before the handler for a NUL in the path, the
// query or a form that fits in formPeek; in a longer form, the handler's
// parse fails at the NUL. Everything else reaches the handler with the
// body it would have read, and the handler's own size limit still holds.
func TestRefuseNUL(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, func(*http.ServeMux, *Dashboard) {})
	type seen struct {
		ran     bool
		form    url.Values
		body    string
		readErr error
	}
	run := func(req *http.Request, read func(r *http.Request, s *seen)) (int, seen) {
		var s seen
		h := td.d.RefuseNUL(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.ran = true
			read(r, &s)
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, s
	}
	// parse reads the form as readAgentForm does.
	parse := func(r *http.Request, s *seen) {
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
			s.readErr = r.ParseMultipartForm(1 << 20)
		} else {
			s.readErr = r.ParseForm()
		}
		s.form = r.PostForm
	}
	urlencoded := func(body string) *http.Request {
		r := httptest.NewRequest("POST", "/signup", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return r
	}

	for _, tt := range []struct {
		name    string
		req     *http.Request
		refused bool
	}{
		{"form", urlencoded("email=a%40b.c&name=Ana"), false},
		{"form with %00", urlencoded("email=a%40b.c&name=A%00na"), true},
		{"form with a raw NUL", urlencoded("name=A\x00na"), true},
		{"form with the text %00", urlencoded("name=50%2500"), false},
		{"query with %00", httptest.NewRequest("GET", "/inbox?q=%00", nil), true},
		{"query", httptest.NewRequest("GET", "/inbox?q=%2500", nil), false},
		{"path with %00", httptest.NewRequest("GET", "/conversations/cv_%00", nil), true},
		{"multipart text", multipartReq(t, "text", "x\x00y", "", ""), true},
		{"multipart file", multipartReq(t, "file", "", "notes.txt", "a\x00b"), true},
		{"multipart file name", multipartReq(t, "file", "", "", "ok"), true}, // filename*=UTF-8''a%00b.txt
		{"multipart clean", multipartReq(t, "text", "50%00 is text here", "", ""), false},
	} {
		code, s := run(tt.req, parse)
		if tt.refused && (code != 400 || s.ran) {
			t.Errorf("%s: %d, handler ran %v; want 400 before the handler", tt.name, code, s.ran)
		}
		if !tt.refused && (!s.ran || s.readErr != nil) {
			t.Errorf("%s: %d, handler ran %v, parse error %v", tt.name, code, s.ran, s.readErr)
		}
	}

	// A long form: the handler reads exactly the bytes sent...
	long := "text=" + strings.Repeat("x", 3*formPeek)
	_, s := run(urlencoded(long), func(r *http.Request, s *seen) {
		b, err := io.ReadAll(r.Body)
		s.body, s.readErr = string(b), err
	})
	if !s.ran || s.readErr != nil || s.body != long {
		t.Errorf("long clean form: ran %v, %d bytes, error %v", s.ran, len(s.body), s.readErr)
	}
	// ...fails to parse at a NUL past the look-ahead, even one whose %00
	// is split across reads...
	for _, at := range []int{formPeek - 1, formPeek, 2*formPeek + 7} {
		body := "text=" + strings.Repeat("x", at) + "%00" + strings.Repeat("y", formPeek)
		_, s = run(urlencoded(body), parse)
		if !s.ran || s.readErr == nil {
			t.Errorf("NUL at %d in a long form: the handler's parse did not fail", at)
		}
	}
	// ...and the handler's own size limit still counts every byte.
	_, s = run(urlencoded(long), func(r *http.Request, s *seen) {
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 16<<10)
		s.readErr = r.ParseForm()
	})
	var tooLarge *http.MaxBytesError
	if !errors.As(s.readErr, &tooLarge) {
		t.Errorf("the handler's 16 KiB limit: parse error %v, want http.MaxBytesError", s.readErr)
	}
}

// multipartReq is a multipart form with one part: a field, or a file
// (fileName "" with content: a file whose RFC 2231 name holds a NUL).
func multipartReq(t *testing.T, field, value, fileName, content string) *http.Request {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	var err error
	switch {
	case value != "":
		err = mw.WriteField(field, value)
	default:
		disposition := `form-data; name="` + field + `"; filename="` + fileName + `"`
		if fileName == "" {
			disposition = `form-data; name="` + field + `"; filename*=UTF-8''a%00b.txt`
		}
		var w io.Writer
		w, err = mw.CreatePart(textproto.MIMEHeader{"Content-Disposition": {disposition}, "Content-Type": {"text/plain"}})
		if err == nil {
			_, err = w.Write([]byte(content))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	mw.Close()
	r := httptest.NewRequest("POST", "/agents/ag_1/knowledge", &b)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	return r
}

// Text a store refuses (a NUL that got past RefuseNUL, deep in a long
// upload) is answered as the request's fault, a 400, not a 500.
func TestStoreRefusedTextIsA400(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, func(*http.ServeMux, *Dashboard) {})
	w := httptest.NewRecorder()
	td.d.fail(w, httptest.NewRequest("POST", "/agents/ag_1/knowledge", nil), fmt.Errorf("add knowledge: %w", store.ErrBadText))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "cannot be stored (NUL") {
		t.Errorf("fail(ErrBadText) = %d %s", w.Code, w.Body.String())
	}
}
