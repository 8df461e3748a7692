package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// gatedLLM is an OpenAI-compatible backend that streams a reply in two
// parts, each only when the test opens its gate, and records whether each
// call asked for a stream. A call without stream=true gets the whole reply.
type gatedLLM struct {
	*httptest.Server
	first, rest chan struct{}
	mu          sync.Mutex
	streams     []bool
}

const (
	streamFirst = `{"reply": "Shipping is free `
	streamRest  = `on orders over 50 euros.", "quick_replies": ["Delivery time?"]}`
)

func newGatedLLM(t *testing.T) *gatedLLM {
	g := &gatedLLM{first: make(chan struct{}), rest: make(chan struct{})}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Stream bool }
		json.NewDecoder(r.Body).Decode(&body)
		io.Copy(io.Discard, r.Body)
		g.mu.Lock()
		g.streams = append(g.streams, body.Stream)
		g.mu.Unlock()
		if !body.Stream {
			c, _ := json.Marshal(streamFirst + streamRest)
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s}}]}`, c)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []struct {
			gate    chan struct{}
			content string
		}{{g.first, streamFirst}, {g.rest, streamRest}} {
			select {
			case <-part.gate:
			case <-r.Context().Done():
				return
			}
			c, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": part.content}}}})
			fmt.Fprintf(w, "data: %s\n\n", c)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":12}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *gatedLLM) calls() []bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]bool(nil), g.streams...)
}

// answers is JavaScript for the texts of the finished assistant messages
// (the greeting first); the streaming draft is not one of them.
const answers = `[...` + W + `.querySelectorAll('.m.a')].map(e => e.textContent)`

// TestWidgetStreams: with an LLM agent the widget shows the typing
// indicator until the first words, then the reply as it is written in a
// draft screen readers do not hear, replaced by the finished message,
// which the log announces once. A stream that breaks is an error with
// Retry, and from then on the widget asks for plain JSON.
func TestWidgetStreams(t *testing.T) {
	t.Parallel()
	fake := newGatedLLM(t)
	s := newStackWith(t, stackOptions{llmURL: fake.URL + "/v1"})
	h := newHost(t, s)
	p := newPage(t, 90*time.Second)
	openChat(p, h.url(pageOptions{}))

	const draft = W + `.querySelector('.m[aria-hidden=true]')`
	const dots = W + `.querySelector('.d')`
	send(p, "How much is shipping?")
	p.wait("the typing indicator", `!`+dots+`.hidden`)
	if eval[bool](p, `!!`+draft) {
		t.Fatal("a draft before the first token")
	}
	close(fake.first)
	p.wait("the first words", draft+`?.textContent == 'Shipping is free '`)
	if eval[bool](p, `!`+dots+`.hidden`) {
		t.Error("the typing indicator stays after the first token")
	}
	if got := eval[[]string](p, answers); len(got) != 1 {
		t.Errorf("finished messages while streaming: %q", got)
	}
	close(fake.rest)
	p.wait("the finished message", answers+`.length == 2 && !`+draft)
	if got := eval[[]string](p, answers); got[1] != "Northwind Help: Shipping is free on orders over 50 euros." {
		t.Errorf("finished message %q", got[1])
	}
	p.wait("the quick reply", W+`.querySelector('.q button')?.textContent == 'Delivery time?'`)
	if got := eval[string](p, W+`.querySelector('[role=log]').getAttribute('aria-live')`); got != "polite" {
		t.Errorf("the log's aria-live is %q", got)
	}

	// A stream cut before its end: an error with Retry; Retry, and every
	// later chat, asks for plain JSON, which the backend is then asked
	// for too.
	s.faults.add("POST /api/widget/chat", fault{streamCut: true})
	send(p, "And to Norway?")
	p.wait("Retry", `!!`+W+`.querySelector('.st button')`)
	if eval[bool](p, `!!`+draft) {
		t.Error("the draft of the broken stream stays")
	}
	clickRetry(p)
	p.wait("the answer as plain JSON", answers+`.length == 3`)
	if calls := fake.calls(); len(calls) != 2 || !calls[0] || calls[1] {
		t.Errorf("backend calls streamed %v, want [true false]", calls)
	}
	p.checkConsole()
}

// A browser that cannot read a stream (no TextDecoderStream) is sent the
// plain JSON answer: the widget does not ask for events.
func TestWidgetWithoutStreams(t *testing.T) {
	t.Parallel()
	fake := newGatedLLM(t)
	s := newStackWith(t, stackOptions{llmURL: fake.URL + "/v1"})
	h := newHost(t, s)
	p := newPage(t, 60*time.Second)
	p.navigate(h.url(pageOptions{}))
	p.wait("the launcher", W+`?.querySelector('.la')`)
	eval[bool](p, `delete window.TextDecoderStream`)
	p.do(chromedp.Click(chromedp.JSPath(W + `.querySelector('.la')`)))
	p.wait("the greeting", W+`.querySelector('.m.a')`)
	send(p, "How much is shipping?")
	p.wait("the answer", answers+`.length == 2`)
	if got := eval[[]string](p, answers); got[1] != "Northwind Help: Shipping is free on orders over 50 euros." {
		t.Errorf("answer %q", got[1])
	}
	if calls := fake.calls(); len(calls) != 1 || calls[0] {
		t.Errorf("backend calls streamed %v, want one plain call", calls)
	}
	p.checkConsole()
}
