package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// lastSources is JavaScript for the newest AI message's sources list.
const lastSources = `[...` + W + `.querySelectorAll('.m.a')].pop()?.querySelector('.sc ul')`

// TestSources: an answer citing its sources shows them as small links
// under it. A document the owner uploaded (answered by the real server)
// is plain text; of an answer citing pages (a chat answer the test
// injects, as the crawler's pages are not the widget's concern), only
// http(s) addresses become links, opening in a new tab with no way back
// to the page, with titles as text; a javascript: address stays text.
// The links are in a list named "Sources", reached with the keyboard, and
// still there after a reload.
func TestSources(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	h := newHost(t, s)
	p := newPage(t, 90*time.Second)

	// The owner uploads a document to the English agent.
	type agentJSON struct {
		ID          string `json:"id"`
		ChatbotName string `json:"chatbot_name"`
	}
	var list struct{ Agents []agentJSON }
	if err := json.Unmarshal(s.manage("GET", "/api/v1/agents", nil, http.StatusOK), &list); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list.Agents, func(a agentJSON) bool { return a.ChatbotName == "Northwind Help" })
	if i < 0 {
		t.Fatalf("no English agent in %+v", list.Agents)
	}
	doc, _ := json.Marshal(map[string]string{"kind": "document", "title": "Returns policy", "lang": "en",
		"text": "# Returns\n\nYou can return any product within 30 days of delivery; the refund reaches you within a week."})
	s.manage("POST", "/api/v1/agents/"+list.Agents[i].ID+"/knowledge", doc, http.StatusCreated)

	p.do(chromedp.EmulateViewport(1280, 800))
	openChat(p, h.url(pageOptions{}))
	eval[bool](p, `(window.events = [], Parley.on('message', m => events.push(m)), true)`)
	send(p, "Can I return a product and get a refund?")
	p.wait("the answer from the document", W+`.querySelectorAll('.m.a').length == 2 && `+lastSources)
	if got := eval[[]string](p, `[...`+lastSources+`.children].map(li => li.textContent)`); !slices.Equal(got, []string{"Returns policy"}) {
		t.Errorf("sources shown %q, want the document's title", got)
	}
	if n := eval[int](p, lastSources+`.querySelectorAll('a').length`); n != 0 {
		t.Errorf("a document (no address) shown with %d links", n)
	}

	// An answer citing a page and a file, as the server sends it (the
	// test's chat answer: pages come from the crawler), for the picture in
	// docs/widget.md.
	clean, _ := json.Marshal(map[string]any{
		"response": "Orders ship within a day; delivery takes 3 to 5 working days.",
		"sources":  []map[string]string{{"title": "Shipping & delivery", "url": "https://northwind.example/shipping"}, {"title": "Delivery terms.pdf"}},
		// An id as every answer has (issue 20), so the picture shows its
		// thumbs; nobody clicks them here.
		"message_id": "9000",
	})
	s.faults.add("POST /api/widget/chat", fault{status: 200, body: string(clean)})
	send(p, "How long does delivery take?")
	p.wait("the answer citing a page", W+`.querySelectorAll('.m.a').length == 3 && `+lastSources)
	eval[bool](p, `(`+W+`.activeElement?.blur(), true)`)
	shotSources(t, p)

	// An answer citing pages, some of them hostile.
	body, _ := json.Marshal(map[string]any{
		"response": "Delivery takes 3 to 5 days.",
		"sources": []map[string]string{
			{"title": "Shipping & delivery", "url": "https://northwind.example/shipping?from=chat&x=<1>"},
			{"title": "Evil page", "url": "javascript:alert(document.domain)"},
			{"title": hostile, "url": "http://northwind.example/old"},
			{"title": "Delivery terms.pdf"},
		},
	})
	s.faults.add("POST /api/widget/chat", fault{status: 200, body: string(body)})
	send(p, "And to Moldova?")
	p.wait("the answer citing pages", W+`.querySelectorAll('.m.a').length == 4 && `+lastSources)
	checkSources := func() {
		t.Helper()
		type item struct {
			Text, Href, Target, Rel string
			Link                    bool
		}
		got := eval[[]item](p, `[...`+lastSources+`.children].map(li => { const a = li.querySelector('a');
			return {text: li.textContent, link: !!a, href: a?.getAttribute('href') || '', target: a?.target || '', rel: a?.rel || ''} })`)
		const rel = "noopener noreferrer"
		want := []item{
			{"Shipping & delivery", "https://northwind.example/shipping?from=chat&x=<1>", "_blank", rel, true},
			{"Evil page", "", "", "", false},
			{hostile, "http://northwind.example/old", "_blank", rel, true},
			{"Delivery terms.pdf", "", "", "", false},
		}
		if !slices.Equal(got, want) {
			t.Errorf("sources shown\n got %+v\nwant %+v", got, want)
		}
		if n := eval[int](p, W+`.querySelectorAll('[href^="javascript:" i]').length`); n != 0 {
			t.Errorf("%d javascript: links", n)
		}
		checkNoMarkup(t, p)
		if names := axNames(p, "list"); !slices.Contains(names, "Sources") {
			t.Errorf("lists %q: none named Sources", names)
		}
	}
	checkSources()
	// Site owners' listeners hear the sources too.
	if n := eval[int](p, `events.filter(e => e.role == 'assistant' && e.sources?.length == 4).length`); n != 1 {
		t.Errorf("%d message events with the 4 sources: %s", n, eval[string](p, `JSON.stringify(events)`))
	}

	// The panel's Escape handler once cancelled every other key pressed in
	// it, Tab included (a handler returning false cancels the event).
	for _, key := range []string{"Tab", "a"} {
		if !eval[bool](p, W+`.querySelector('.x').dispatchEvent(new KeyboardEvent('keydown', {key: '`+key+`', bubbles: true, cancelable: true}))`) {
			t.Errorf("the panel cancels the key %s", key)
		}
	}
	// Keyboard: Tab from the close button reaches the first link.
	p.do(chromedp.Focus(chromedp.JSPath(W + `.querySelector('.x')`)))
	reached := false
	for range 12 {
		p.keys(kb.Tab)
		if reached = eval[bool](p, W+`.activeElement?.textContent == 'Shipping & delivery'`); reached {
			break
		}
	}
	if !reached {
		t.Errorf("Tab never reached the link; the focus is on %s", eval[string](p, W+`.activeElement?.outerHTML || 'nothing in the widget'`))
	}
	if ring := eval[string](p, `getComputedStyle(`+W+`.activeElement).outlineStyle`); ring == "none" {
		t.Errorf("the focused link shows no focus ring")
	}

	// After a reload the stored transcript shows them again.
	p.navigate(h.url(pageOptions{}))
	p.wait("the transcript restored", W+`?.querySelectorAll('.m.a').length == 4 && `+lastSources)
	checkSources()
	p.checkConsole()
}

// shotSources keeps a screenshot of the answer with its sources as an
// artifact, and in docs/screenshots with
// PARLEY_UPDATE_SCREENSHOTS=1.
func shotSources(t *testing.T, p *page) {
	t.Helper()
	const file = "widget-desktop-sources-en.png"
	b := recompress(t, capture(p, file, false, widgetProbes))
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), file), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
