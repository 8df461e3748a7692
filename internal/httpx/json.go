// Package httpx holds Parley's HTTP plumbing shared by every API: JSON
// decoding and encoding, and the catalogue that maps errors to statuses.
package httpx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"parley/internal/nulchar"
)

// MaxBody is the largest request body any JSON endpoint reads. A chat text
// is at most 2,000 characters (8 KB of UTF-8); 64 KiB leaves room for
// agent configuration and knowledge in the management API.
const MaxBody = 64 << 10

// ErrTooLarge is returned by Decode for a body over MaxBody.
var ErrTooLarge = errors.New("request body is too large")

// Decode reads one JSON object from the body into v. It is strict, so that a
// client's mistake is reported rather than ignored: unknown fields, wrong
// types, trailing data and bodies over MaxBody are errors. The content type
// is not checked, so that CORS "simple requests" (text/plain) work too.
//
// A NUL character (\u0000) anywhere in the body is refused too (400,
// ErrNUL): PostgreSQL cannot store it, and no field of any API needs it.
// This is the one place the APIs' JSON input is checked for it
// (docs/api.md); the stores refuse what gets past (store.ErrBadText).
func Decode(w http.ResponseWriter, r *http.Request, v any) error {
	body := &scanReader{r: http.MaxBytesReader(w, r.Body, MaxBody)}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return ErrTooLarge
		}
		return badRequest("request body must hold a single JSON object")
	}
	if body.nul.Found() {
		return ErrNUL
	}
	return nil
}

// scanReader looks for a NUL in what it reads (one allocation, where
// io.TeeReader and a scanner would be two).
type scanReader struct {
	r   io.Reader
	nul nulchar.Scanner
}

func (s *scanReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.nul.Write(p[:n])
	return n, err
}

// ErrNUL is Decode's error for a body with a NUL character; it maps to 400.
var ErrNUL error = &decodeErr{`text must not contain NUL characters (\u0000)`}

func decodeError(err error) error {
	var (
		syntax    *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		tooLarge  *http.MaxBytesError
		unmarshal *json.InvalidUnmarshalError
	)
	switch {
	case errors.As(err, &tooLarge):
		return ErrTooLarge
	case errors.Is(err, io.EOF):
		return badRequest("request body is empty; send a JSON object")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("request body is not valid JSON")
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return badRequest("request body must be a JSON object")
		}
		return badRequest(fmt.Sprintf("field %q must be %s", typeErr.Field, kindName(typeErr.Type.Kind().String())))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for unknown fields.
		return badRequest("unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field "))
	case errors.As(err, &unmarshal):
		panic(err) // a programming error: v is not a pointer
	}
	return badRequest("request body is not valid JSON")
}

func kindName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int64", "int32", "float64", "uint", "uint64":
		return "a number"
	}
	return "of another type"
}

// badRequest is a decoding failure; it maps to 400.
func badRequest(msg string) error { return &decodeErr{msg} }

type decodeErr struct{ msg string }

func (e *decodeErr) Error() string { return e.msg }

// The headers of every JSON answer, shared rather than allocated per
// response (net/http copies a response's headers, never changes them).
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	noSniff         = []string{"nosniff"}
)

// JSON writes v as a JSON response with the status.
func JSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = noSniff
	w.WriteHeader(status)
	// An encoding error here means the client went away; nothing to do.
	_ = json.NewEncoder(w).Encode(v)
}
