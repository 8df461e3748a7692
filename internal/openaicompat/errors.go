package openaicompat

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Error is an error answer of the backend. It holds the HTTP status and the
// API's error code and type ("invalid_api_key", "model_not_found"), which
// say what to fix, but never the error's message: servers quote the
// request, even the API key, in it.
type Error struct {
	StatusCode int
	Code       string
	Type       string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("openaicompat: HTTP %d", e.StatusCode)
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	return s
}

// apiError is OpenAI's error object: {"error": {"message", "type", "code"}}.
// Some servers put a number in code, or a bare string in "error".
type apiError struct {
	Type string          `json:"type"`
	Code json.RawMessage `json:"code"`
}

func (a *apiError) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		return nil // {"error": "text"}: a message only
	}
	type plain apiError
	return json.Unmarshal(b, (*plain)(a))
}

func (a *apiError) asError(status int) *Error {
	e := &Error{StatusCode: status, Type: a.Type}
	var s string
	if json.Unmarshal(a.Code, &s) == nil {
		e.Code = s
	} else if c := strings.TrimSpace(string(a.Code)); c != "null" && len(c) <= 32 {
		e.Code = c
	}
	return e
}

// statusError is the *Error for an answer with an error status; the body's
// code and type are read when it is an error object.
func statusError(res *http.Response) *Error {
	var body struct {
		Error *apiError `json:"error"`
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if json.Unmarshal(raw, &body) == nil && body.Error != nil {
		return body.Error.asError(res.StatusCode)
	}
	return &Error{StatusCode: res.StatusCode}
}
