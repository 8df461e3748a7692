package e2e

import (
	"encoding/json"
	"strconv"

	"github.com/chromedp/chromedp"
	"testing"
	"time"
)

// TestRefusedOrigin: an agent that allows only its owner's site, embedded on
// another (the test's host page, on 127.0.0.1). The widget's first call is
// refused with the origin's 403; the widget goes away without a word, and
// the next page view of that site draws nothing at all. Once the owner
// adds the site to the list, the widget works there.
func TestRefusedOrigin(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	var list struct {
		Agents []struct {
			ID          string `json:"id"`
			ChatbotName string `json:"chatbot_name"`
		} `json:"agents"`
	}
	if err := json.Unmarshal(s.manage("GET", "/api/v1/agents", nil, 200), &list); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, a := range list.Agents {
		if a.ChatbotName == agents[0].chatbot {
			id = a.ID
		}
	}
	s.manage("PATCH", "/api/v1/agents/"+id, []byte(`{"config":{"allowed_origins":["https://shop.example"]}}`), 200)

	h := newHost(t, s)
	p := newPage(t, 60*time.Second)
	// data-open: the widget calls init at once, as a visitor's click would.
	u := h.url(pageOptions{attrs: map[string]string{"open": ""}})
	p.navigate(u)
	p.wait("the refusal remembered", `JSON.parse(localStorage.getItem('parley:`+s.keys["en"]+`') || '{}').x > 0`)
	p.wait("the widget gone", `!document.querySelector('#parley-widget')`)

	// The next page view, without data-open and with the chat not left
	// open (S.o), so that nothing calls the API and takes a launcher away
	// again: the loader runs (window.Parley) and, once the browser is idle
	// (when it would draw the launcher), has drawn nothing.
	// (The storage is edited from a page without the widget: the
	// widget saves its state when its page goes away.)
	sk := `'parley:` + s.keys["en"] + `'`
	p.navigate(h.url(pageOptions{noWidget: true}))
	eval[bool](p, `(st = JSON.parse(localStorage.getItem(`+sk+`)), delete st.o, localStorage.setItem(`+sk+`, JSON.stringify(st)), true)`)
	p.navigate(h.url(pageOptions{}))
	p.wait("the loader", `!!window.Parley`)
	if drawn := eval[bool](p, `new Promise(r => requestIdleCallback(() => setTimeout(() => r(!!document.querySelector('#parley-widget')), 50), {timeout: 3000}))`); drawn {
		t.Fatal("the widget was drawn on a refused site")
	}

	// The same site once its owner allows it: the page's own origin joins
	// the list, the remembered refusal is cleared (as its day running out
	// would), and the widget draws and starts a conversation there.
	s.manage("PATCH", "/api/v1/agents/"+id, []byte(`{"config":{"allowed_origins":["https://shop.example",`+strconv.Quote(h.srv.URL)+`]}}`), 200)
	p.navigate(h.url(pageOptions{noWidget: true}))
	eval[bool](p, `(localStorage.removeItem(`+sk+`), true)`)
	p.navigate(h.url(pageOptions{}))
	p.wait("the launcher", W+`?.querySelector('.la')`)
	p.do(chromedp.Click(chromedp.JSPath(W + `.querySelector('.la')`)))
	// (The PATCH replaced the config, greeting included: the started
	// conversation in the widget's storage is the sign.)
	p.wait("a conversation started on the allowed site", `!!JSON.parse(localStorage.getItem(`+sk+`) || '{}').c`)
	p.wait("the chat open", W+`?.querySelector('.p') && !`+W+`.querySelector('.p').hidden`)

	// The only complaint is the browser's own line about the 403.
	p.checkConsole("403")
}
