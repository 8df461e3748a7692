package dashboard

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"
)

// maxForm bounds the body of every dashboard request (sign-in, sign-up,
// passwords, team, language …): 16 KiB is far more than any of those forms
// holds, and reading a 10 MB "name" is how sign-up once filled the disk.
// Handlers that need more raise it with readForm: operator replies
// (maxReplyForm) and the agent forms (agents.go), whose knowledge uploads
// have their own, larger limits.
const maxForm = 16 << 10

// maxReplyForm fits a reply's 2,000 characters URL-encoded (up to 12 bytes
// each) with room to spare.
const maxReplyForm = 64 << 10

// BoundBody caps the body of a dashboard request at maxForm. The server
// calls it for every dashboard route, so a handler that forgets to bound
// its form is bounded all the same.
func BoundBody(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &boundedBody{ReadCloser: http.MaxBytesReader(w, r.Body, maxForm), raw: r.Body}
	}
}

// boundedBody keeps the body under BoundBody's cap, so that readForm can
// set another.
type boundedBody struct {
	io.ReadCloser
	raw io.ReadCloser
}

// unbound is the body without BoundBody's cap (before anything was read).
func unbound(body io.ReadCloser) io.ReadCloser {
	if b, ok := body.(*boundedBody); ok {
		return b.raw
	}
	return body
}

// readForm parses a URL-encoded POST form of at most limit bytes. On
// failure it returns the status (413 for a body over the limit, else 400)
// and the message key to show.
func readForm(w http.ResponseWriter, r *http.Request, limit int64) (int, string) {
	r.Body = http.MaxBytesReader(w, unbound(r.Body), limit)
	err := r.ParseForm()
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, "form.toolarge"
	case err != nil:
		return http.StatusBadRequest, "form.invalid"
	}
	return 0, ""
}

// retryAfter sets the Retry-After header of a 429 (whole seconds, rounded
// up) and returns the wait as the page says it, in lang.
func retryAfter(w http.ResponseWriter, lang string, wait time.Duration) string {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	if secs < 90 {
		return fmt.Sprintf(T(lang, "wait.seconds"), secs)
	}
	return fmt.Sprintf(T(lang, "wait.minutes"), (secs+59)/60)
}
