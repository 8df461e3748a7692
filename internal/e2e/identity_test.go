package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
)

// TestVerifiedVisitorHistory: a signed-in visitor chats in one browser;
// in a second browser (another context: no shared storage) the same
// signed user, identified through Parley('identify'), opens the chat and
// sees that conversation; a third browser, another signed user who even
// carries the first browser's visitor_id, sees none of it.
func TestVerifiedVisitorHistory(t *testing.T) {
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
	var ag struct {
		IdentitySecret string `json:"identity_secret"`
	}
	if err := json.Unmarshal(s.manage("GET", "/api/v1/agents/"+id, nil, 200), &ag); err != nil || ag.IdentitySecret == "" {
		t.Fatalf("identity secret: %+v %v", ag, err)
	}
	hash := domain.UserHash(ag.IdentitySecret, "user-42")
	h := newHost(t, s)
	sk := `'parley:` + s.keys["en"] + `'`

	// First browser: the tag names the user.
	p1 := newPage(t, 90*time.Second)
	p1.navigate(h.url(pageOptions{attrs: map[string]string{"open": "", "user-id": "user-42", "user-hash": hash, "name": "Ana"}}))
	p1.wait("the panel", W+`?.querySelector('textarea')`)
	p1.wait("the launcher gone", W+`.querySelector('.la').hidden`)
	p1.click(W + `.querySelector('textarea')`)
	p1.keys("What are your opening hours?")
	p1.enter()
	p1.wait("the AI's answer", `[...`+W+`.querySelectorAll('.m.a')].some(e => e.textContent.includes('We are open from 9 to 17'))`)
	visitor := eval[string](p1, `JSON.parse(localStorage.getItem(`+sk+`)).v`)

	// Second browser: the page identifies the user from script, then the
	// visitor opens the chat: the last conversation is there.
	p2 := newPage(t, 90*time.Second)
	p2.navigate(h.url(pageOptions{}))
	p2.wait("the loader", `typeof window.Parley == 'function'`)
	eval[bool](p2, `(Parley('identify', {user_id: 'user-42', user_hash: `+jsString(hash)+`, name: 'Ana'}), true)`)
	p2.wait("the launcher", W+`?.querySelector('.la')`)
	eval[bool](p2, `(Parley('open'), true)`)
	p2.wait("the history", `[...`+W+`.querySelectorAll('.m.u')].some(e => e.textContent.includes('What are your opening hours?'))`)
	p2.wait("the history's answer", `[...`+W+`.querySelectorAll('.m.a')].some(e => e.textContent.includes('We are open from 9 to 17'))`)
	if v := eval[string](p2, `JSON.parse(localStorage.getItem(`+sk+`)).v`); v == visitor {
		t.Errorf("the second browser has the first one's visitor id")
	}

	// Third browser: another signed user, with the first browser's
	// visitor_id planted in its storage: nothing of user-42's.
	p3 := newPage(t, 90*time.Second)
	p3.navigate(h.url(pageOptions{noWidget: true}))
	eval[bool](p3, `(localStorage.setItem(`+sk+`, JSON.stringify({v: `+jsString(visitor)+`})), true)`)
	other := domain.UserHash(ag.IdentitySecret, "user-7")
	p3.navigate(h.url(pageOptions{attrs: map[string]string{"open": "", "user-id": "user-7", "user-hash": other}}))
	p3.wait("the greeting", W+`?.querySelector('.m.a')?.textContent.includes('Ask me about orders')`)
	if n := eval[int](p3, W+`.querySelectorAll('.m.u').length`); n != 0 {
		t.Fatalf("the third browser shows %d visitor messages:\n%s", n, p3.dump())
	}
	if txt := eval[string](p3, W+`.querySelector('.lg').textContent`); strings.Contains(txt, "What are your opening hours?") || strings.Contains(txt, "We are open") {
		t.Fatalf("the third browser shows another visitor's history: %q", txt)
	}
	p1.checkConsole()
	p2.checkConsole()
	p3.checkConsole()
}
