package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/insights"
)

// The insights page (issue 20, docs/dashboard.md "Insights"): what the
// agent resolved and what it could not, per period and agent, with its
// charts drawn here in SVG, the CSV of its days, the knowledge gaps and
// the entries the operators' replies suggest. Every user reads it; owners
// turn gaps and suggestions into knowledge (the forms are theirs alone).

type insightsData struct {
	Summary     insights.Summary
	From, To    string // the period's days, as the form shows them
	AgentID     string
	Agents      []domain.Agent
	Query       string // the period's query string, for the CSV link
	Days        dayChart
	Hours       hourChart
	Gaps        []insights.Gap
	Suggestions []insights.Suggestion
	AgentNames  map[string]string
	Owner       bool
}

func (d *Dashboard) insightsOn(w http.ResponseWriter, r *http.Request) bool {
	if d.Insights == nil {
		d.fail(w, r, domain.ErrNotFound)
		return false
	}
	return true
}

// insightsPeriod reads the period of the page's form (from, to, agent_id).
func (d *Dashboard) insightsPeriod(r *http.Request) (insights.Period, error) {
	q := r.URL.Query()
	return insights.ParsePeriod(q.Get("from"), q.Get("to"), q.Get("agent_id"), d.Now())
}

// InsightsPage shows the period's report, gaps and suggestions.
func (d *Dashboard) InsightsPage(w http.ResponseWriter, r *http.Request) {
	if !d.insightsOn(w, r) {
		return
	}
	ctx, u := r.Context(), user(r)
	agents, err := d.AgentAdmin.Agents(ctx, u.AccountID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data := insightsData{Agents: agents, AgentNames: map[string]string{}, Owner: u.IsOwner()}
	for _, a := range agents {
		data.AgentNames[a.ID] = a.ChatbotName
	}
	p, err := d.insightsPeriod(r)
	if err != nil {
		// A period the form cannot give (typed into the address bar):
		// the default one, with the reason.
		p, _ = insights.ParsePeriod("", "", "", d.Now())
		d.showInsights(w, r, http.StatusBadRequest, p, data, "insights.err.period")
		return
	}
	d.showInsights(w, r, http.StatusOK, p, data, "")
}

func (d *Dashboard) showInsights(w http.ResponseWriter, r *http.Request, status int, p insights.Period, data insightsData, errKey string) {
	ctx, acc := r.Context(), user(r).AccountID
	s, err := d.Insights.Report(ctx, acc, p)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Gaps, err = d.Insights.Gaps(ctx, acc, p); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Suggestions, err = d.Insights.Suggestions(ctx, acc, p); err != nil {
		d.fail(w, r, err)
		return
	}
	data.Summary, data.From, data.To, data.AgentID = s, p.FromDay(), p.ToDay(), p.AgentID
	data.Query = periodQuery(p)
	data.Days, data.Hours = outcomeChart(s.Days), hoursChart(s.Hours)
	flash := ""
	switch r.URL.Query().Get("done") {
	case "answered":
		flash = "insights.answered"
	case "accepted":
		flash = "insights.accepted"
	}
	d.render(w, r, status, "insights", view{Title: "insights.title", Nav: "insights", Error: errKey, Flash: flash, Data: data})
}

// periodQuery is p as the page's query string.
func periodQuery(p insights.Period) string {
	q := "from=" + p.FromDay() + "&to=" + p.ToDay()
	if p.AgentID != "" {
		q += "&agent_id=" + p.AgentID
	}
	return q
}

// InsightsCSV downloads the period's days as CSV (insights.Summary.WriteCSV).
func (d *Dashboard) InsightsCSV(w http.ResponseWriter, r *http.Request) {
	if !d.insightsOn(w, r) {
		return
	}
	p, err := d.insightsPeriod(r)
	if err != nil {
		d.render(w, r, http.StatusBadRequest, "error", view{Title: "error.bad", Error: "insights.err.period"})
		return
	}
	s, err := d.Insights.Report(r.Context(), user(r).AccountID, p)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+insights.CSVName(p)+`"`)
	_ = s.WriteCSV(w) // the status is sent; a broken connection is the client's
}

type gapData struct {
	Gap      insights.Gap
	Replies  []insights.Reply
	Question string // the form's, as shown or as sent back
	Answer   string
	Agent    string // the agent's name
}

// GapPage is "Answer this": the gap's examples, the operators' replies to
// them (each can fill the answer: ?use=N) and the form.
func (d *Dashboard) GapPage(w http.ResponseWriter, r *http.Request) {
	if !d.insightsOn(w, r) {
		return
	}
	g, replies, err := d.Insights.Gap(r.Context(), user(r).AccountID, r.PathValue("id"))
	if err != nil {
		d.gapFailed(w, r, err)
		return
	}
	data := gapData{Gap: g, Replies: replies, Question: g.Question}
	if n, err := strconv.Atoi(r.URL.Query().Get("use")); err == nil && n >= 0 && n < len(replies) {
		data.Answer = replies[n].Text
	}
	d.showGap(w, r, http.StatusOK, data, "")
}

func (d *Dashboard) showGap(w http.ResponseWriter, r *http.Request, status int, data gapData, errKey string) {
	if ag, err := d.AgentAdmin.Agent(r.Context(), user(r).AccountID, data.Gap.AgentID); err == nil {
		data.Agent = ag.ChatbotName
	}
	d.render(w, r, status, "gap", view{Title: "insights.answer.title", Nav: "insights", Error: errKey, Data: data})
}

// gapFailed answers a gap that is no longer open (answered meanwhile) with
// the insights page's own word for it, anything else as usual.
func (d *Dashboard) gapFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, domain.ErrConflict) {
		http.Redirect(w, r, "/insights?done=answered", http.StatusSeeOther)
		return
	}
	d.fail(w, r, err)
}

// insightsForm reads a form that changes knowledge (an answer, a
// suggestion) and returns the user and a context naming them for the
// audit log; ok false when the page is off or the form unreadable (the
// answer written).
func (d *Dashboard) insightsForm(w http.ResponseWriter, r *http.Request) (ctx context.Context, u domain.User, ok bool) {
	if !d.insightsOn(w, r) {
		return nil, u, false
	}
	if status, key := readForm(w, r, maxReplyForm); key != "" {
		d.render(w, r, status, "error", view{Title: "error.bad", Error: key})
		return nil, u, false
	}
	u = user(r)
	return audit.WithActor(r.Context(), d.actor(r, u)), u, true
}

// AnswerGap turns the owner's answer into a knowledge entry
// (insights.Service.Answer) and goes back to the insights page.
func (d *Dashboard) AnswerGap(w http.ResponseWriter, r *http.Request) {
	ctx, u, ok := d.insightsForm(w, r)
	if !ok {
		return
	}
	in := insights.AnswerInput{Question: r.PostFormValue("question"), Answer: r.PostFormValue("answer")}
	_, _, err := d.Insights.Answer(ctx, u.AccountID, r.PathValue("id"), in)
	if err == nil {
		http.Redirect(w, r, "/insights?done=answered#gaps", http.StatusSeeOther)
		return
	}
	key, status := "", http.StatusBadRequest
	var invalid *domain.InvalidError
	if errors.As(err, &invalid) {
		key = "insights.err.answer"
	} else if st, k := knowledgeRefusal(err); k != "" {
		status, key = st, k
	}
	if key == "" {
		d.gapFailed(w, r, err)
		return
	}
	g, replies, gerr := d.Insights.Gap(r.Context(), u.AccountID, r.PathValue("id"))
	if gerr != nil {
		d.gapFailed(w, r, gerr)
		return
	}
	d.showGap(w, r, status, gapData{Gap: g, Replies: replies, Question: in.Question, Answer: in.Answer}, key)
}

// AcceptSuggestion adds a suggested entry, as the owner left it, to the
// agent's knowledge.
func (d *Dashboard) AcceptSuggestion(w http.ResponseWriter, r *http.Request) {
	ctx, u, ok := d.insightsForm(w, r)
	if !ok {
		return
	}
	_, err := d.Insights.Accept(ctx, u.AccountID, r.PostFormValue("agent_id"), r.PostFormValue("question"), r.PostFormValue("answer"))
	if status, key := knowledgeRefusal(err); key != "" {
		d.render(w, r, status, "error", view{Title: "error.bad", Error: key})
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/insights?done=accepted#suggestions", http.StatusSeeOther)
}

// firstResponse writes a median first response as the page's language
// does: seconds under a minute, minutes and seconds under an hour, else
// hours and minutes; "—" when there is none.
func firstResponse(lang string, d *time.Duration) string {
	if d == nil {
		return "—"
	}
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf(T(lang, "insights.secs"), s)
	case s < 3600:
		return fmt.Sprintf(T(lang, "insights.minsecs"), s/60, s%60)
	}
	return fmt.Sprintf(T(lang, "insights.hoursmins"), s/3600, s%3600/60)
}

// percent writes a rate (0.625) as the page's language writes a
// percentage with one decimal ("62.5%", "62,5%"); "—" when there is none.
func percent(lang string, rate *float64) string {
	if rate == nil {
		return "—"
	}
	s := strconv.FormatFloat(*rate*100, 'f', 1, 64)
	if lang != "en" {
		s = strings.Replace(s, ".", ",", 1)
	}
	if lang == "ru" {
		return s + "\u00a0%" // Russian sets a (no-break) space before it
	}
	return s + "%"
}
