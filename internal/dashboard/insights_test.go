package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/insights"
)

func insightsRoutes(mux *http.ServeMux, d *Dashboard) {
	mux.HandleFunc("GET /insights", d.requireUser(d.InsightsPage))
	mux.HandleFunc("GET /insights.csv", d.requireUser(d.InsightsCSV))
	mux.HandleFunc("GET /insights/gaps/{id}", d.requireOwner(d.GapPage))
	mux.HandleFunc("POST /insights/gaps/{id}", d.requireOwner(d.AnswerGap))
	mux.HandleFunc("POST /insights/suggestions", d.requireOwner(d.AcceptSuggestion))
}

// The insights page end to end over HTTP on a real store: visitors'
// questions the knowledge base cannot answer become a gap, which the owner
// answers (an operator may read, not answer); the CSV has the period's
// days; a period the form cannot give is refused with a message.
func TestInsightsPage(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, insightsRoutes)
	td.d.Insights = insights.New(td.st, td.d.AgentAdmin, nil)
	ctx := context.Background()
	var convs []string
	for _, q := range []string{"Do you deliver on Sundays?", "Can my order be delivered on a Sunday?", "What are your opening hours?"} {
		res, err := td.chat.Init(ctx, chat.InitInput{Key: td.key})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: td.key, ConversationID: res.ConversationID, Text: q, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		convs = append(convs, res.ConversationID)
	}
	// An operator answered the second: "Use this reply" offers it.
	op := td.newUser("oleg@example.com", "Oleg", td.owner.AccountID)
	reply := "Yes, on Sundays from 10 to 16 <in Chișinău>."
	if _, err := td.chat.OperatorReply(ctx, td.owner.AccountID, convs[1], chat.UserOperator(op), reply); err != nil {
		t.Fatal(err)
	}
	owner := td.withSession(td.owner)
	p := owner.get("/insights")
	text := usageText(p.body)
	if p.status != 200 {
		t.Fatalf("insights: %d\n%s", p.status, text)
	}
	for _, want := range []string{"Conversations 3", "Resolved by AI 33.3% (1 of 3", "Handed to a person 33.3% (1 of 3", "Unanswered 33.3% (1 of 3", "Knowledge gaps"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q:\n%s", want, text)
		}
	}
	i := strings.Index(p.body, `href="/insights/gaps/`)
	if i < 0 {
		t.Fatalf("no Answer this link:\n%s", text)
	}
	gap := p.body[i+len(`href="`) : i+strings.Index(p.body[i:], `" `)]

	// An operator reads the page, without the owners' forms.
	opb := td.withSession(op)
	if p := opb.get("/insights"); p.status != 200 || strings.Contains(p.body, "/insights/gaps/") || strings.Contains(p.body, `action="/insights/suggestions"`) {
		t.Fatalf("the operator's page: %d, with the owners' forms", p.status)
	}
	if p := opb.post(gap, url.Values{"answer": {"Yes."}}); p.status != http.StatusForbidden {
		t.Fatalf("an operator answered a gap: %d", p.status)
	}

	if p := owner.get(gap); p.status != 200 || !strings.Contains(p.body, "Do you deliver on Sundays?") || !strings.Contains(p.body, "Can my order be delivered on a Sunday?") {
		t.Fatalf("Answer this: %d\n%s", p.status, usageText(p.body))
	}
	// The operator's reply, offered and taken into the answer (escaped as
	// any text).
	if p := owner.get(gap); !strings.Contains(p.body, "Yes, on Sundays from 10 to 16 &lt;in Chișinău&gt;.") || !strings.Contains(p.body, gap+"?use=0") {
		t.Fatalf("the operator's reply is not offered:\n%s", usageText(p.body))
	}
	if p := owner.get(gap + "?use=0"); !strings.Contains(p.body, ">Yes, on Sundays from 10 to 16 &lt;in Chișinău&gt;.</textarea>") {
		t.Fatalf("Use this reply did not fill the answer:\n%s", p.body)
	}
	if p := owner.get(gap + "?use=7"); p.status != 200 || strings.Contains(p.body, ">Yes, on Sundays from 10 to 16 &lt;in Chișinău&gt;.</textarea>") {
		t.Fatal("a reply that does not exist filled the answer")
	}
	if p := owner.post(gap, url.Values{"answer": {"  "}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, "Write an answer.") {
		t.Fatalf("an empty answer: %d", p.status)
	}
	if p := owner.post(gap, url.Values{"answer": {"Yes, from 10 to 16."}, "question": {"Do you deliver on Sundays?"}}); p.status != http.StatusSeeOther {
		t.Fatalf("answering: %d\n%s", p.status, usageText(p.body))
	}
	kb, err := td.d.AgentAdmin.Knowledge(ctx, td.owner.AccountID, td.agent.ID)
	if err != nil || len(kb) != 2 || kb[1].Question != "Do you deliver on Sundays?" || kb[1].Answer != "Yes, from 10 to 16." {
		t.Fatalf("knowledge after the answer: %+v %v", kb, err)
	}
	if p := owner.get("/insights?done=answered"); !strings.Contains(usageText(p.body), "Resolved") || strings.Contains(p.body, `href="/insights/gaps/`) {
		t.Fatalf("the gap is not shown resolved:\n%s", usageText(p.body))
	}
	// Answered meanwhile (by another owner): back to the page.
	if p := owner.post(gap, url.Values{"answer": {"Again."}}); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/insights") {
		t.Fatalf("answering twice: %d %s", p.status, p.location)
	}

	today := td.d.Now().UTC().Format("2006-01-02")
	csv := owner.get("/insights.csv?from=" + today + "&to=" + today)
	if csv.status != 200 || !strings.HasPrefix(csv.header.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(csv.body, "date,conversations,resolved") || !strings.Contains(csv.body, today+",3,1,1,1,0,0,0\n") {
		t.Fatalf("CSV: %d %s\n%s", csv.status, csv.header.Get("Content-Type"), csv.body)
	}
	if p := owner.get("/insights?from=2026-02-30"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "The period is not valid") {
		t.Fatalf("a bad period: %d", p.status)
	}
}
