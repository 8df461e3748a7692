package manageapi

import (
	"net/http"
	"time"

	"parley/internal/domain"
	"parley/internal/hours"
	"parley/internal/httpx"
	"parley/internal/offline"
)

// WithOffline serves the business hours and the CSAT ratings (issue 19);
// without it those routes answer 404.
func (a *API) WithOffline(svc *offline.Service) *API {
	a.offline = svc
	return a
}

// GetBusinessHours: the account's business hours; enabled false (the
// default) is always open.
func (a *API) GetBusinessHours(w http.ResponseWriter, r *http.Request) {
	if a.offline == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	h, err := a.offline.Hours(r.Context(), account(r).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if h.Days == nil {
		h.Days = []hours.Range{}
	}
	httpx.JSON(w, http.StatusOK, h)
}

// SetBusinessHours replaces the account's business hours.
func (a *API) SetBusinessHours(w http.ResponseWriter, r *http.Request) {
	if a.offline == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	var in hours.Hours
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	h, err := a.offline.SetHours(r.Context(), account(r).ID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, h)
}

type ratingJSON struct {
	ConversationID string    `json:"conversation_id"`
	Rating         int       `json:"rating"`
	Comment        string    `json:"comment"`
	RatedAt        time.Time `json:"rated_at"`
}

// GetConversationRating: the visitor's rating of one conversation; 404
// when it has none.
func (a *API) GetConversationRating(w http.ResponseWriter, r *http.Request) {
	if a.offline == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	rt, err := a.offline.Rating(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, ratingJSON{ConversationID: rt.ConversationID, Rating: rt.Rating, Comment: rt.Comment, RatedAt: rt.At.UTC()})
}

type ratingsJSON struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Count   int       `json:"count"`
	Average float64   `json:"average"`
	Scores  [5]int    `json:"scores"`
}

// GetRatings: the CSAT report of [from, to) (RFC 3339; default the last
// 30 days): how many ratings, their average and how many of each score.
func (a *API) GetRatings(w http.ResponseWriter, r *http.Request) {
	if a.offline == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	to, from := time.Now().UTC(), time.Time{}
	q := r.URL.Query()
	var err error
	if v := q.Get("to"); v != "" {
		if to, err = time.Parse(time.RFC3339, v); err != nil {
			httpx.Error(w, r, domain.Invalid("to must be an RFC 3339 time"))
			return
		}
	}
	from = to.AddDate(0, 0, -30)
	if v := q.Get("from"); v != "" {
		if from, err = time.Parse(time.RFC3339, v); err != nil {
			httpx.Error(w, r, domain.Invalid("from must be an RFC 3339 time"))
			return
		}
	}
	st, err := a.offline.Ratings(r.Context(), account(r).ID, from, to)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, ratingsJSON{From: from.UTC(), To: to.UTC(), Count: st.Count, Average: st.Average(), Scores: st.Scores})
}

// waitAlertJSON is a user's wait alert: an e-mail to the user when a
// conversation waits for a person that many minutes (0: off).
type waitAlertJSON struct {
	UserID  string `json:"user_id"`
	Minutes int    `json:"wait_alert_minutes"`
	// MailEnabled: whether e-mail is configured (PARLEY_SMTP_URL); off,
	// the setting is kept but nothing is sent.
	MailEnabled bool `json:"mail_enabled"`
}

// GetWaitAlert: a user of the account's wait alert. The API acts as the
// account, so it reads and sets any of its users' (the dashboard: each
// user their own); another account's user is 404.
func (a *API) GetWaitAlert(w http.ResponseWriter, r *http.Request) {
	if a.offline == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	id := r.PathValue("id")
	n, err := a.offline.WaitAlert(r.Context(), account(r).ID, id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, waitAlertJSON{UserID: id, Minutes: n, MailEnabled: a.offline.MailEnabled()})
}

// SetWaitAlert sets a user's wait alert: {"wait_alert_minutes": 0..1440}.
func (a *API) SetWaitAlert(w http.ResponseWriter, r *http.Request) {
	if a.offline == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	var in struct {
		Minutes *int `json:"wait_alert_minutes"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Minutes == nil {
		httpx.Error(w, r, domain.Invalid("wait_alert_minutes is required"))
		return
	}
	id := r.PathValue("id")
	if err := a.offline.SetWaitAlert(r.Context(), account(r).ID, id, *in.Minutes); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, waitAlertJSON{UserID: id, Minutes: *in.Minutes, MailEnabled: a.offline.MailEnabled()})
}
