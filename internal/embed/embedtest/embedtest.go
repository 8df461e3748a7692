// Package embedtest is a fake OpenAI-compatible /v1/embeddings server for
// tests. Its vectors are deterministic and put paraphrases near each
// other: each word is first mapped to a concept (words of one meaning, as
// listed in Concepts, share one), and a text's vector is the normalised
// sum of its concepts' pseudo-random directions. So "money back" and
// "reimburse" point the same way although they share no word, which is
// what a real embedding model does and BM25 cannot.
package embedtest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"
)

// Concepts maps words to the concept they mean; other words are their own.
var Concepts = map[string]string{
	"refund": "refund", "refunds": "refund", "reimburse": "refund", "reimbursed": "refund",
	"money": "refund", "back": "refund", "repay": "refund",
	"ship": "ship", "shipping": "ship", "delivery": "ship", "deliver": "ship", "arrive": "ship", "parcel": "ship",
	"cost": "price", "price": "price", "fee": "price", "expensive": "price",
	"puppy": "pet", "dog": "pet", "dogs": "pet", "cat": "pet", "cats": "pet", "animals": "pet", "pet": "pet", "pets": "pet", "kitten": "pet",
}

// stop are words too common to mean anything.
var stop = map[string]bool{"a": true, "the": true, "i": true, "my": true, "can": true, "get": true, "we": true, "you": true, "your": true, "is": true, "of": true, "to": true, "in": true, "how": true, "do": true, "what": true, "within": true}

// Vector is model's vector for text, of dims dimensions. Another model
// gives other vectors, as a real one would.
func Vector(model, text string, dims int) []float32 {
	v := make([]float64, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stop[w] {
			continue
		}
		if c, ok := Concepts[w]; ok {
			w = c
		}
		h := fnv.New64a()
		h.Write([]byte(model + "\x00" + w))
		r := rand.New(rand.NewPCG(h.Sum64(), 17))
		for i := range v {
			v[i] += r.NormFloat64()
		}
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, dims)
	if n == 0 {
		out[0] = 1 // a text of no words: some direction, not NaN
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// Server is the fake backend.
type Server struct {
	*httptest.Server
	Dims int
	// Fail, set, answers every request with 503.
	Fail atomic.Bool
	mu   sync.Mutex
	reqs [][]string // the inputs of each request
}

// New starts a fake server whose vectors have dims dimensions.
func New(t testing.TB, dims int) *Server {
	s := &Server{Dims: dims}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the API root to configure, ".../v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Inputs returns every text embedded so far, in order.
func (s *Server) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []string
	for _, r := range s.reqs {
		all = append(all, r...)
	}
	return all
}

// Requests is how many requests were answered.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if s.Fail.Load() {
		w.Header().Set("X-Should-Retry", "false")
		http.Error(w, `{"error":{"code":"unavailable"}}`, http.StatusServiceUnavailable)
		return
	}
	var body struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model == "" {
		http.Error(w, `{"error":{"code":"bad_request"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, body.Input)
	s.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: body.Model}
	for i, in := range body.Input {
		out.Data = append(out.Data, item{"embedding", i, Vector(body.Model, in, s.Dims)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
