package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The insights routes over HTTP (issue 20): the report's JSON and CSV, a
// knowledge gap answered into knowledge so that the next visitor gets the
// answer, and the errors the contract names.
func TestInsightsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	chat := func(text string) map[string]any {
		t.Helper()
		conv, _ := e.start()
		r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": text, "lang": "en"}, nil)
		if r.status != 200 {
			t.Fatalf("chat: %d %s", r.status, r.raw)
		}
		return r.body
	}
	answered := chat("What are your opening hours?")
	if id, _ := answered["message_id"].(string); id == "" {
		t.Fatalf("the AI body has no message_id: %v", answered)
	}
	for _, q := range []string{"Do you have gift cards?", "do you have any gift cards", "Can I bring my dog?"} {
		chat(q)
	}
	e.start() // abandoned

	r := e.api("GET", "/api/v1/insights", nil)
	if r.status != 200 {
		t.Fatalf("insights: %d %s", r.status, r.raw)
	}
	var rep struct {
		From, To                 string
		AgentID                  *string `json:"agent_id"`
		Conversations, Abandoned int
		Resolved                 int
		Unanswered               int
		Rate                     *float64 `json:"ai_resolution_rate"`
		Unrate                   *float64 `json:"unanswered_rate"`
		Handoff                  *float64 `json:"handoff_rate"`
		Helpful                  *int
		NotHelpful               *int             `json:"not_helpful"`
		ByDay                    []map[string]any `json:"by_day"`
		Hours                    []int
		CSAT                     map[string]any
		Median                   *int64 `json:"median_first_response_seconds"`
	}
	if err := json.Unmarshal(r.raw, &rep); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2006-01-02")
	if rep.To != today || rep.AgentID != nil || rep.Conversations != 5 || rep.Abandoned != 1 || rep.Resolved != 1 || rep.Unanswered != 3 ||
		rep.Rate == nil || *rep.Rate != 0.25 || *rep.Unrate != 0.75 || *rep.Handoff != 0 || rep.Helpful == nil || rep.NotHelpful == nil ||
		len(rep.ByDay) != 30 || len(rep.Hours) != 24 || rep.CSAT == nil || rep.Median != nil {
		t.Fatalf("report: %s", r.raw)
	}
	if last := rep.ByDay[29]; last["date"] != today || last["conversations"] != 5.0 {
		t.Fatalf("today's row: %v", last)
	}
	csv := e.api("GET", "/api/v1/insights?format=csv&from="+today+"&to="+today, nil)
	if csv.status != 200 || !strings.HasPrefix(csv.header.Get("Content-Type"), "text/csv") ||
		string(csv.raw) != "date,conversations,resolved,handed_off,unanswered,abandoned,helpful,not_helpful\n"+today+",5,1,0,3,1,0,0\ntotal,5,1,0,3,1,0,0\n" {
		t.Fatalf("CSV: %d %q", csv.status, csv.raw)
	}
	for _, q := range []string{"?from=2026-02-30", "?to=yesterday", "?from=2026-11-02&to=2026-11-01", "?from=2020-01-01&to=2026-01-01", "?format=xml"} {
		wantError(t, e.api("GET", "/api/v1/insights"+q, nil), 400, "")
	}
	wantError(t, e.api("GET", "/api/v1/insights?agent_id=ag_nobody", nil), 404, "")
	if r := e.do("GET", "/api/v1/insights", nil, nil); r.status != 401 {
		t.Fatalf("without a token: %d", r.status)
	}

	var gaps struct {
		Gaps []struct {
			ID       string
			Question string
			Count    int
			Resolved bool
			Examples []map[string]any
		}
	}
	g := e.api("GET", "/api/v1/insights/gaps", nil)
	if err := json.Unmarshal(g.raw, &gaps); err != nil || g.status != 200 || len(gaps.Gaps) != 2 || gaps.Gaps[0].Count != 2 || len(gaps.Gaps[0].Examples) != 2 {
		t.Fatalf("gaps: %d %s", g.status, g.raw)
	}
	id := gaps.Gaps[0].ID
	wantError(t, e.api("POST", "/api/v1/insights/gaps/"+id+"/answer", map[string]any{"answer": ""}), 400, "")
	wantError(t, e.api("POST", "/api/v1/insights/gaps/gap_999999/answer", map[string]any{"answer": "x"}), 404, "")
	for len(e.builds) > 0 { // the builds so far: the first chat's
		<-e.builds
	}
	a := e.api("POST", "/api/v1/insights/gaps/"+id+"/answer", map[string]any{"answer": "Yes, from 25 euros."})
	if a.status != 201 {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	if entry, _ := a.body["entry"].(map[string]any); entry["answer"] != "Yes, from 25 euros." || entry["id"] == "" {
		t.Fatalf("the answer's entry: %s", a.raw)
	}
	if gap, _ := a.body["gap"].(map[string]any); gap["resolved"] != true || gap["entry_id"] == nil {
		t.Fatalf("the answered gap: %s", a.raw)
	}
	wantError(t, e.api("POST", "/api/v1/insights/gaps/"+id+"/answer", map[string]any{"answer": "again"}), 409, "")
	// The next visitor who asks gets the answer, from the index the new
	// entry started building.
	select {
	case <-e.builds:
	case <-time.After(10 * time.Second):
		t.Fatal("the knowledge index was not rebuilt after the answer")
	}
	if got := chat("Do you have gift cards?")["response"]; got != "Yes, from 25 euros." {
		t.Fatalf("the next visitor was told %q", got)
	}
	if s := e.api("GET", "/api/v1/insights/suggestions", nil); s.status != 200 || !strings.Contains(string(s.raw), `"suggestions":[]`) {
		t.Fatalf("suggestions: %d %s", s.status, s.raw)
	}
}

// A gap's answer is found whatever language the widget said: a Romanian
// question typed into an English widget is searched in Romanian, and the
// entry the answer makes has no language, so it answers there too.
func TestGapAnswerEveryLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ask := func(text, lang string) string {
		t.Helper()
		conv, _ := e.start()
		r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": text, "lang": lang}, nil)
		if r.status != 200 {
			t.Fatalf("chat: %d %s", r.status, r.raw)
		}
		return r.str("response")
	}
	ask("Vindeți carduri cadou?", "en")
	var gaps struct{ Gaps []struct{ ID string } }
	if err := json.Unmarshal(e.api("GET", "/api/v1/insights/gaps", nil).raw, &gaps); err != nil || len(gaps.Gaps) != 1 {
		t.Fatalf("gaps: %+v %v", gaps, err)
	}
	for len(e.builds) > 0 {
		<-e.builds
	}
	if a := e.api("POST", "/api/v1/insights/gaps/"+gaps.Gaps[0].ID+"/answer", map[string]any{"answer": "Da, de 50 și 100 de lei."}); a.status != 201 {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	select {
	case <-e.builds:
	case <-time.After(10 * time.Second):
		t.Fatal("the knowledge index was not rebuilt after the answer")
	}
	for _, lang := range []string{"en", "ro"} {
		if got := ask("Vindeți carduri cadou?", lang); got != "Da, de 50 și 100 de lei." {
			t.Errorf("widget in %s: told %q", lang, got)
		}
	}
}
