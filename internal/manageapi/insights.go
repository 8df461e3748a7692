package manageapi

import (
	"net/http"
	"time"

	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/insights"
)

// WithInsights serves the reports, knowledge gaps and suggestions (issue
// 20); without it those routes answer 404.
func (a *API) WithInsights(svc *insights.Service) *API {
	a.insights = svc
	return a
}

// period reads from, to and agent_id of the query (insights.ParsePeriod);
// ok false when the route is off or the period refused, the error
// written.
func (a *API) period(w http.ResponseWriter, r *http.Request) (p insights.Period, ok bool) {
	if a.insights == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return p, false
	}
	q := r.URL.Query()
	p, err := insights.ParsePeriod(q.Get("from"), q.Get("to"), q.Get("agent_id"), time.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return p, false
	}
	return p, true
}

type insightsJSON struct {
	From    string  `json:"from"`
	To      string  `json:"to"`
	AgentID *string `json:"agent_id"`

	Conversations int `json:"conversations"`
	Resolved      int `json:"resolved"`
	HandedOff     int `json:"handed_off"`
	Unanswered    int `json:"unanswered"`
	Abandoned     int `json:"abandoned"`

	AIResolutionRate *float64 `json:"ai_resolution_rate"`
	HandoffRate      *float64 `json:"handoff_rate"`
	UnansweredRate   *float64 `json:"unanswered_rate"`

	Helpful    int `json:"helpful"`
	NotHelpful int `json:"not_helpful"`

	CSAT                       csatJSON   `json:"csat"`
	MedianFirstResponseSeconds *int64     `json:"median_first_response_seconds"`
	FirstResponses             int        `json:"first_responses"`
	BusiestHours               []hourJSON `json:"busiest_hours"`
	Hours                      [24]int    `json:"hours"`
	ByDay                      []dayJSON  `json:"by_day"`
}

type csatJSON struct {
	Ratings int      `json:"ratings"`
	Average *float64 `json:"average"`
	Scores  [5]int   `json:"scores"`
}

type hourJSON struct {
	Hour          int `json:"hour"`
	Conversations int `json:"conversations"`
}

type dayJSON struct {
	Date          string `json:"date"`
	Conversations int    `json:"conversations"`
	Resolved      int    `json:"resolved"`
	HandedOff     int    `json:"handed_off"`
	Unanswered    int    `json:"unanswered"`
	Abandoned     int    `json:"abandoned"`
	Helpful       int    `json:"helpful"`
	NotHelpful    int    `json:"not_helpful"`
}

// Insights: the report of a period (docs/api.md "Insights"), as JSON or,
// with format=csv, the days as CSV.
func (a *API) Insights(w http.ResponseWriter, r *http.Request) {
	p, ok := a.period(w, r)
	if !ok {
		return
	}
	format := r.URL.Query().Get("format")
	if format != "" && format != "json" && format != "csv" {
		httpx.Error(w, r, domain.Invalid("format must be json or csv"))
		return
	}
	s, err := a.insights.Report(r.Context(), account(r).ID, p)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+insights.CSVName(p)+`"`)
		_ = s.WriteCSV(w) // the status is sent; a broken connection is the client's
		return
	}
	httpx.JSON(w, http.StatusOK, toInsightsJSON(s))
}

func toInsightsJSON(s insights.Summary) insightsJSON {
	out := insightsJSON{
		From: s.FromDay(), To: s.ToDay(),
		Conversations: s.Totals.Conversations, Resolved: s.Totals.Resolved, HandedOff: s.Totals.HandedOff,
		Unanswered: s.Totals.Unanswered, Abandoned: s.Totals.Abandoned,
		AIResolutionRate: s.AIResolutionRate, HandoffRate: s.HandoffRate, UnansweredRate: s.UnansweredRate,
		Helpful: s.Totals.Helpful, NotHelpful: s.Totals.NotHelpful,
		CSAT:           csatJSON{Ratings: s.Ratings.Count, Scores: s.Ratings.Scores},
		FirstResponses: s.FirstResponses, Hours: s.Hours,
		BusiestHours: []hourJSON{}, ByDay: make([]dayJSON, len(s.Days)),
	}
	if s.AgentID != "" {
		out.AgentID = &s.AgentID
	}
	if s.Ratings.Count > 0 {
		avg := insights.Round2(s.Ratings.Average())
		out.CSAT.Average = &avg
	}
	if m := s.MedianFirstResponse; m != nil {
		secs := int64(*m / time.Second)
		out.MedianFirstResponseSeconds = &secs
	}
	for _, h := range s.BusiestHours {
		out.BusiestHours = append(out.BusiestHours, hourJSON{Hour: h.Hour, Conversations: h.Conversations})
	}
	for i, d := range s.Days {
		out.ByDay[i] = dayJSON{Date: d.Day.UTC().Format("2006-01-02"), Conversations: d.Conversations, Resolved: d.Resolved,
			HandedOff: d.HandedOff, Unanswered: d.Unanswered, Abandoned: d.Abandoned, Helpful: d.Helpful, NotHelpful: d.NotHelpful}
	}
	return out
}

type gapJSON struct {
	ID         string        `json:"id"`
	AgentID    string        `json:"agent_id"`
	Question   string        `json:"question"`
	Lang       string        `json:"lang,omitempty"`
	Count      int           `json:"count"`
	Unanswered int           `json:"unanswered"`
	NotHelpful int           `json:"not_helpful"`
	LastAt     time.Time     `json:"last_asked_at"`
	Examples   []exampleJSON `json:"examples"`
	Resolved   bool          `json:"resolved"`
	EntryID    *string       `json:"entry_id"`
}

type exampleJSON struct {
	Text           string    `json:"text"`
	ConversationID string    `json:"conversation_id"`
	At             time.Time `json:"asked_at"`
	Reason         string    `json:"reason"`
}

func toGapJSON(g insights.Gap) gapJSON {
	out := gapJSON{ID: g.ID, AgentID: g.AgentID, Question: g.Question, Lang: g.Lang, Count: g.Count,
		Unanswered: g.Unanswered, NotHelpful: g.NotHelpful, LastAt: g.LastAt.UTC(), Resolved: g.Resolved,
		Examples: make([]exampleJSON, len(g.Examples))}
	if g.Resolved {
		out.EntryID = &g.EntryID
	}
	for i, e := range g.Examples {
		out.Examples[i] = exampleJSON{Text: e.Text, ConversationID: e.ConversationID, At: e.At.UTC(), Reason: string(e.Reason)}
	}
	return out
}

// Gaps: the knowledge gaps of a period, the open ones first.
func (a *API) Gaps(w http.ResponseWriter, r *http.Request) {
	p, ok := a.period(w, r)
	if !ok {
		return
	}
	gaps, err := a.insights.Gaps(r.Context(), account(r).ID, p)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := struct {
		Gaps []gapJSON `json:"gaps"`
	}{Gaps: make([]gapJSON, len(gaps))}
	for i, g := range gaps {
		out.Gaps[i] = toGapJSON(g)
	}
	httpx.JSON(w, http.StatusOK, out)
}

type answerRequest struct {
	Answer   string `json:"answer"`
	Question string `json:"question"`
}

// AnswerGap: the owner's answer to an open gap becomes a knowledge entry
// of its agent; 201 with the entry and the gap, now resolved.
func (a *API) AnswerGap(w http.ResponseWriter, r *http.Request) {
	if a.insights == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	var req answerRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	e, g, err := a.insights.Answer(r.Context(), account(r).ID, r.PathValue("id"), insights.AnswerInput{Answer: req.Answer, Question: req.Question})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, struct {
		Entry domain.KnowledgeEntry `json:"entry"`
		Gap   gapJSON               `json:"gap"`
	}{e, toGapJSON(g)})
}

type replyJSON struct {
	Text           string    `json:"text"`
	OperatorName   string    `json:"operator_name"`
	ConversationID string    `json:"conversation_id"`
	At             time.Time `json:"created_at"`
}

type suggestionJSON struct {
	AgentID       string      `json:"agent_id"`
	Question      string      `json:"question"`
	Answer        string      `json:"answer"`
	Answers       []replyJSON `json:"answers"`
	Conversations int         `json:"conversations"`
	LastAt        time.Time   `json:"last_answered_at"`
}

// Suggestions: Q&A entries suggested from the operators' replies of a
// period; accepted through POST /api/v1/agents/{id}/knowledge.
func (a *API) Suggestions(w http.ResponseWriter, r *http.Request) {
	p, ok := a.period(w, r)
	if !ok {
		return
	}
	sgs, err := a.insights.Suggestions(r.Context(), account(r).ID, p)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := struct {
		Suggestions []suggestionJSON `json:"suggestions"`
	}{Suggestions: make([]suggestionJSON, len(sgs))}
	for i, s := range sgs {
		sj := suggestionJSON{AgentID: s.AgentID, Question: s.Question, Answer: s.Answer, Conversations: s.Conversations,
			LastAt: s.LastAt.UTC(), Answers: make([]replyJSON, len(s.Answers))}
		for j, rp := range s.Answers {
			sj.Answers[j] = replyJSON{Text: rp.Text, OperatorName: rp.OperatorName, ConversationID: rp.ConversationID, At: rp.At.UTC()}
		}
		out.Suggestions[i] = sj
	}
	httpx.JSON(w, http.StatusOK, out)
}
