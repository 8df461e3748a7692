package openaicompat

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// embedServer answers each input with the vector [len(input), index in the
// whole call], from the data in reverse order, so that a client that
// ignored "index" or mixed batches up would be caught.
func embedServer(t *testing.T, offset *int) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		var body struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.URL.Path != "/v1/embeddings" || body.Model != "e" ||
			r.Header.Get("Authorization") != "Bearer sk-1" {
			t.Errorf("request %s model %q (%v)", r.URL.Path, body.Model, err)
		}
		var data []string
		for i := len(body.Input) - 1; i >= 0; i-- {
			data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,%d]}`, i, len(body.Input[i]), *offset+i))
		}
		*offset += len(body.Input)
		fmt.Fprintf(w, `{"object":"list","data":[%s],"model":"e"}`, strings.Join(data, ","))
	}
}

func TestEmbedBatchesInOrder(t *testing.T) {
	t.Parallel()
	offset := 0
	c, n := server(t, embedServer(t, &offset))
	in := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	got, err := c.Embed(t.Context(), EmbedRequest{Model: "e", Input: in, Batch: 2}, Retry{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 || len(got) != len(in) {
		t.Fatalf("%d requests, %d vectors; want 3 and %d", n.Load(), len(got), len(in))
	}
	for i, v := range got {
		if v[0] != float32(len(in[i])) || v[1] != float32(i) {
			t.Errorf("vector %d = %v, want [%d %d]", i, v, len(in[i]), i)
		}
	}
}

func TestEmbedRetriesAndErrors(t *testing.T) {
	t.Parallel()
	// A 503 is retried as for chat; then a good answer.
	offset := 0
	ok := embedServer(t, &offset)
	c, n := server(t, func(w http.ResponseWriter, r *http.Request, i int) {
		if i == 0 {
			w.Header().Set("Retry-After-Ms", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		ok(w, r, i)
	})
	if got, err := c.Embed(t.Context(), EmbedRequest{Model: "e", Input: []string{"x"}}, Retry{Max: 1}); err != nil || len(got) != 1 || n.Load() != 2 {
		t.Fatalf("Embed after a 503 = %v, %v after %d requests", got, err, n.Load())
	}

	bad := map[string]struct {
		status int
		body   string
		want   error
	}{
		"401":             {401, `{"error":{"message":"key sk-1 bad","code":"invalid_api_key"}}`, &Error{StatusCode: 401, Code: "invalid_api_key"}},
		"too few vectors": {200, `{"data":[{"index":0,"embedding":[1]}]}`, ErrInvalidResponse},
		"index twice":     {200, `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`, ErrInvalidResponse},
		"lengths differ":  {200, `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2,3]}]}`, ErrInvalidResponse},
		"empty vector":    {200, `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`, ErrInvalidResponse},
		"HTML":            {200, `<html>`, ErrInvalidResponse},
		"error with 200":  {200, `{"error":{"code":"model_not_found"}}`, &Error{StatusCode: 200, Code: "model_not_found"}},
	}
	for name, tc := range bad {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, _ := server(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			})
			_, err := c.Embed(t.Context(), EmbedRequest{Model: "e", Input: []string{"x", "y"}}, Retry{})
			var apiErr *Error
			if want, isAPI := tc.want.(*Error); isAPI {
				if !errors.As(err, &apiErr) || *apiErr != *want {
					t.Fatalf("err = %v, want %v", err, want)
				}
				if strings.Contains(err.Error(), "sk-1") {
					t.Fatalf("error %q quotes the body", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
