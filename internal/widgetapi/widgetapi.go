// Package widgetapi serves the public widget API of the spec:
// POST /api/widget/init, POST /api/widget/chat and GET /api/widget/poll.
// Handlers decode, call the chat service and encode; the rules live in
// package chat. CORS and the per-IP rate limit wrap these handlers in
// package server, so they apply to errors too.
package widgetapi

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"parley/internal/chat"
	"parley/internal/clientip"
	"parley/internal/domain"
	"parley/internal/httpx"
)

type API struct {
	chat     *chat.Service
	clientIP func(*http.Request) netip.Addr
}

func New(c *chat.Service) *API { return &API{chat: c, clientIP: clientip.New(nil).ClientIP} }

// ResolveClients names the client of a request with r (which honours
// PARLEY_TRUSTED_PROXIES), for the agents' per-address limits on new
// conversations. Without it, the client is the TCP peer.
func (a *API) ResolveClients(r *clientip.Resolver) *API {
	a.clientIP = r.ClientIP
	return a
}

type initRequest struct {
	Key       *string `json:"key"`
	VisitorID string  `json:"visitor_id"`
	PageURL   string  `json:"page_url"`
	// Identity verification (optional): docs/widget.md.
	UserID   string `json:"user_id"`
	UserHash string `json:"user_hash"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	// What the server cannot see, for the desk's visitor details
	// (optional; docs/widget.md).
	TimeZone string `json:"time_zone"`
	Language string `json:"language"`
	Referrer string `json:"referrer"`
}

type initResponse struct {
	ConversationID string          `json:"conversation_id"`
	VisitorID      string          `json:"visitor_id"`
	ChatbotName    string          `json:"chatbot_name"`
	Config         json.RawMessage `json:"config"`
	// Only for a verified visitor: verified is true, and history is their
	// latest earlier conversation with the agent when there is one.
	Verified bool         `json:"verified,omitempty"`
	History  *historyJSON `json:"history,omitempty"`
}

type historyJSON struct {
	ConversationID string           `json:"conversation_id"`
	Messages       []historyMessage `json:"messages"`
}

type historyMessage struct {
	Role         string    `json:"role"`
	Text         string    `json:"text"`
	OperatorName string    `json:"operator_name,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
}

func toHistory(h *chat.History) *historyJSON {
	if h == nil {
		return nil
	}
	out := &historyJSON{ConversationID: h.ConversationID, Messages: make([]historyMessage, 0, len(h.Messages))}
	for _, m := range h.Messages {
		out.Messages = append(out.Messages, historyMessage{Role: string(m.Role), Text: m.Text, OperatorName: m.OperatorName, CreatedAt: m.CreatedAt})
	}
	return out
}

func (a *API) Init(w http.ResponseWriter, r *http.Request) {
	var req initRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if req.Key == nil {
		httpx.Error(w, r, domain.Invalid("key is required"))
		return
	}
	res, err := a.chat.Init(r.Context(), chat.InitInput{Key: *req.Key, Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID, PageURL: req.PageURL, IP: a.clientIP(r),
		Identity: domain.Identity{UserID: req.UserID, UserHash: req.UserHash, Name: req.Name, Email: req.Email},
		Visitor:  chat.VisitorInfo{UserAgent: r.Header.Get("User-Agent"), Language: req.Language, TimeZone: req.TimeZone, Referrer: req.Referrer}})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, initResponse{
		ConversationID: res.ConversationID, VisitorID: res.VisitorID,
		ChatbotName: res.ChatbotName, Config: res.Config,
		Verified: res.Verified, History: toHistory(res.History),
	})
}

type chatRequest struct {
	Key            *string `json:"key"`
	ConversationID *string `json:"conversation_id"`
	Text           *string `json:"text"`
	VisitorID      string  `json:"visitor_id"`
	Lang           string  `json:"lang"`
	PageURL        string  `json:"page_url"` // optional: the page the visitor is on now
}

// The spec's two 200 bodies. They are separate types so that the handoff
// body can never carry a "response" key. "sources" is ours, not the spec's:
// it is left out when the answer cites nothing, so such a body is exactly
// the spec's.
type aiReply struct {
	Response         string             `json:"response"`
	UserReplyOptions []string           `json:"user_reply_options,omitempty"`
	Sources          []domain.SourceRef `json:"sources,omitempty"`
	// Offline (ours, issue 19): the reply hands over to a person but none
	// can answer now; the widget offers the e-mail form (POST
	// /api/widget/contact). Left out when false.
	Offline bool `json:"offline,omitempty"`
	// MessageID (ours, issue 20): the stored answer's id, which POST
	// /api/widget/feedback names. Left out when there is nothing to rate
	// (the reply that hands over to a person).
	MessageID string `json:"message_id,omitempty"`
}

type handoffReply struct {
	Handoff string `json:"handoff"`
	Wait    bool   `json:"wait"`
}

func (a *API) Chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	switch {
	case req.Key == nil:
		httpx.Error(w, r, domain.Invalid("key is required"))
		return
	case req.ConversationID == nil:
		httpx.Error(w, r, domain.Invalid("conversation_id is required"))
		return
	case req.Text == nil:
		httpx.Error(w, r, domain.Invalid("text is required"))
		return
	}
	in := chat.ChatInput{
		Key: *req.Key, ConversationID: *req.ConversationID, Text: *req.Text, Origin: r.Header.Get("Origin"),
		VisitorID: req.VisitorID, Lang: req.Lang, PageURL: req.PageURL,
	}
	if wantsStream(r) {
		a.chatStream(w, r, in)
		return
	}
	res, err := a.chat.Chat(r.Context(), in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, chatBody(res))
}

// chatBody is the 200 body for a chat result.
func chatBody(res chat.ChatResult) any {
	if res.Handoff {
		return handoffReply{Handoff: "human", Wait: true}
	}
	r := aiReply{Response: res.Response, UserReplyOptions: res.Options, Sources: res.Sources, Offline: res.Offline}
	if res.MessageID != 0 {
		r.MessageID = strconv.FormatInt(res.MessageID, 10)
	}
	return r
}

type pollMessage struct {
	ID           string    `json:"id"`
	Text         string    `json:"text"`
	OperatorName string    `json:"operator_name"`
	CreatedAt    time.Time `json:"created_at"`
}

type pollResponse struct {
	Messages []pollMessage `json:"messages"`
	Cursor   string        `json:"cursor"`
	Handoff  string        `json:"handoff,omitempty"`
	Wait     bool          `json:"wait"`
	// Rate (ours, issue 19): a person answered and handed the
	// conversation back; the widget may ask for a rating (POST
	// /api/widget/rating). Left out when false.
	Rate bool `json:"rate,omitempty"`
	// Typing (ours, issue 19): an operator is typing now; left out
	// otherwise.
	Typing *typingJSON `json:"typing,omitempty"`
}

type typingJSON struct {
	Name string `json:"name"`
}

func (a *API) Poll(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	wait, err := parseWait(q.Get("wait"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if !q.Has("key") {
		httpx.Error(w, r, domain.Invalid("key is required"))
		return
	}
	res, err := a.chat.Poll(r.Context(), chat.PollInput{Key: q.Get("key"), Origin: r.Header.Get("Origin"), ConversationID: q.Get("conversation_id"), After: q.Get("after"), Wait: wait})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := pollResponse{Messages: make([]pollMessage, len(res.Messages)), Cursor: res.Cursor, Wait: res.Human, Rate: res.Rate}
	for i, m := range res.Messages {
		out.Messages[i] = pollMessage{ID: strconv.FormatInt(m.Seq, 10), Text: m.Text, OperatorName: m.OperatorName, CreatedAt: m.CreatedAt}
	}
	if res.Human {
		out.Handoff = "human"
	}
	if res.Typing != "" {
		out.Typing = &typingJSON{Name: res.Typing}
	}
	httpx.JSON(w, http.StatusOK, out)
}

// parseWait reads the wait parameter: whole seconds from 0 to 30.
func parseWait(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > int(chat.MaxPollWait/time.Second) {
		return 0, domain.Invalid("wait must be a whole number of seconds from 0 to 30")
	}
	return time.Duration(n) * time.Second, nil
}
