package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chatReply is the widget chat's AI body, as much as these tests read.
type chatReply struct {
	Response  string `json:"response"`
	MessageID string `json:"message_id"`
	Handoff   bool   `json:"handoff"`
}

// ask sends text as v and returns the chat's answer.
func (v *visitor) ask(text string) chatReply {
	v.t.Helper()
	var r chatReply
	v.post("/api/widget/chat", map[string]any{"key": v.key, "conversation_id": v.conv, "text": text, "lang": v.lang}, &r)
	return r
}

// thumbs gives v's thumbs on the AI answer messageID, as the widget does.
func thumbs(t *testing.T, v *visitor, messageID string, helpful bool) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"key": v.key, "conversation_id": v.conv, "message_id": messageID, "helpful": helpful})
	res, err := http.Post(v.s.srv.URL+"/api/widget/feedback", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("feedback: %d", res.StatusCode)
	}
}

// The insights page in Chromium (issue 20): a period's outcomes, its
// charts and CSV, and the knowledge gap that three visitors' ways of
// asking one question make. The owner answers it with "Answer this", by
// keyboard; the gap shows as resolved, and the next visitor who asks
// gets the answer.
func TestInsightsAnswerThis(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	owner, _ := dashboardUsers(t, s)
	ctx := context.Background()
	agents, err := s.store.Agents(ctx, owner.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	agentID := agents[0].ID // the English agent

	// Three visitors ask what the knowledge lacks, each in their words.
	giftCards := []string{"Do you have gift cards?", "hello, do you have any GIFT CARDS??", "Gift cards?"}
	var dontKnow string
	for _, q := range giftCards {
		r := s.visitor("en").ask(q)
		if strings.Contains(r.Response, "Shipping") || strings.Contains(r.Response, "open from") || strings.Contains(r.Response, "gift") || r.Response == "" {
			t.Fatalf("the agent answered %q before it knew: %q", q, r.Response)
		}
		dontKnow = r.Response
	}
	// One resolved (and marked helpful), one handed to a person, one
	// abandoned.
	v := s.visitor("en")
	if r := v.ask("What are your opening hours?"); !strings.Contains(r.Response, "9 to 17") || r.MessageID == "" {
		t.Fatalf("opening hours: %+v", r)
	} else {
		thumbs(t, v, r.MessageID, true)
	}
	s.visitor("en").say("Talk to a human")
	s.visitor("en")
	// Operators answer one question in two conversations: a suggested
	// entry.
	invoice := "Yes, for companies: write to billing@northwind.example."
	for _, q := range []string{"Can I pay by invoice?", "can i pay by invoice please"} {
		v := s.visitor("en")
		v.say("Talk to a human")
		s.operatorSays(v.conv, "Oleg", "Hello, Oleg here.")
		v.say(q)
		s.operatorSays(v.conv, "Oleg", invoice)
	}

	p := newPage(t, 120*time.Second)
	p.do(chromedp.EmulateViewport(1280, 900))
	signIn(p, s.srv.URL, "owner@example.com")
	p.navigate(s.srv.URL + "/insights")
	settle(p, "the insights page", `!!document.querySelector('table.gaps tbody tr')`)
	facts := eval[string](p, `document.querySelector('dl.facts').innerText`)
	for _, want := range []string{"Conversations\n8", "14.3% (1 of 7", "Handed to a person\n42.9% (3 of 7", "Unanswered\n42.9% (3 of 7", "1 helpful, 0 not helpful"} {
		if !strings.Contains(facts, want) {
			t.Errorf("the figures lack %q:\n%s", want, facts)
		}
	}
	if n := eval[int](p, `document.querySelectorAll('svg.chart[role=img] rect.bar').length`); n < 4 {
		t.Errorf("%d bars in the charts, want the day's four outcomes and the hours", n)
	}
	row := eval[string](p, `document.querySelector('table.gaps tbody tr').innerText`)
	if !strings.Contains(row, "3") || !strings.Contains(strings.ToLower(row), "gift card") {
		t.Fatalf("the first gap is not the gift card question asked three times: %q", row)
	}
	if sg := eval[string](p, `document.querySelector('section.suggestion').innerText`); !strings.Contains(sg, "pay by invoice") || !strings.Contains(sg, "2 conversations") {
		t.Errorf("the suggested entry: %q", sg)
	}
	if a := eval[string](p, `document.querySelector('section.suggestion textarea').value`); a != invoice {
		t.Errorf("the suggestion's answer is %q, want the operators' reply", a)
	}
	shotDesk(t, p, "insights-en")

	// Answer this, by keyboard: the link, then the answer.
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('table.gaps a[href^="/insights/gaps/"]')`)))
	p.keys(kb.Enter)
	settle(p, "the Answer this page", `location.pathname.startsWith('/insights/gaps/') && !!document.querySelector('#gap-a')`)
	examples := eval[string](p, `document.querySelector('main').innerText`)
	for _, q := range giftCards {
		if !strings.Contains(examples, q) {
			t.Errorf("the gap's page lacks the way %q was asked", q)
		}
	}
	shotDesk(t, p, "insights-answer-en")
	answer := "Yes: gift cards of 25, 50 and 100 euros, in the shop and online."
	p.do(chromedp.Focus(chromedp.JSPath(`document.querySelector('#gap-a')`)))
	before := s.builds.count(agentID)
	p.keys(answer)
	p.click(`document.querySelector('#answer-form button[type=submit]')`)
	settle(p, "the insights page after the answer", `location.pathname == '/insights' && !!document.querySelector('.flash') && !!document.querySelector('table.gaps tr.resolved')`)
	if open := eval[int](p, `document.querySelectorAll('table.gaps a[href^="/insights/gaps/"]').length`); open != 0 {
		t.Errorf("%d gaps still open after the answer", open)
	}

	// The API says the same.
	var gaps struct {
		Gaps []struct {
			Count    int     `json:"count"`
			Resolved bool    `json:"resolved"`
			EntryID  *string `json:"entry_id"`
		} `json:"gaps"`
	}
	if err := json.Unmarshal(s.manage("GET", "/api/v1/insights/gaps", nil, 200), &gaps); err != nil || len(gaps.Gaps) != 1 ||
		!gaps.Gaps[0].Resolved || gaps.Gaps[0].Count != 3 || gaps.Gaps[0].EntryID == nil {
		t.Fatalf("gaps after the answer: %+v %v", gaps, err)
	}

	// The next visitor who asks gets the answer, once the agent's index
	// has the new entry (built when it was saved).
	deadline := time.Now().Add(15 * time.Second)
	for s.builds.count(agentID) == before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if r := s.visitor("en").ask("Do you have gift cards?"); r.Response != answer {
		t.Fatalf("the next visitor was told %q (before: %q), want the owner's answer", r.Response, dontKnow)
	}

	// The suggestion, accepted as it is, leaves the list.
	p.click(`document.querySelector('section.suggestion button[type=submit]')`)
	settle(p, "the insights page after accepting", `location.pathname == '/insights' && !!document.querySelector('.flash') && !document.querySelector('section.suggestion')`)
	kbEntries, err := s.store.Knowledge(ctx, agentID)
	if err != nil || len(kbEntries) != 4 || kbEntries[3].Answer != invoice {
		t.Fatalf("knowledge after accepting: %+v %v", kbEntries, err)
	}

	// The page in Romanian and Russian.
	for _, lang := range []string{"ro", "ru"} {
		eval[bool](p, `(document.querySelector('#lang-switch').value = '`+lang+`', document.querySelector('#lang-switch').form.submit(), true)`)
		settle(p, "the page in "+lang, `document.documentElement.lang == '`+lang+`' && !!document.querySelector('table.gaps')`)
		shotDesk(t, p, "insights-"+lang)
	}
	p.checkConsole()
}
