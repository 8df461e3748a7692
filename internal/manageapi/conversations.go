package manageapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/store"
)

type conversationSummary struct {
	ID            string      `json:"id"`
	AgentID       string      `json:"agent_id"`
	VisitorID     string      `json:"visitor_id"`
	Mode          domain.Mode `json:"mode"`
	PageURL       string      `json:"page_url"`
	CreatedAt     time.Time   `json:"created_at"`
	LastMessageAt *time.Time  `json:"last_message_at"` // null before the first message
	LastMessage   string      `json:"last_message"`
	Waiting       bool        `json:"waiting"` // asked for a human; no operator has taken over yet
	// LastActivityAt: the start or the newest message, whichever is later
	// (sort=activity orders by it); WaitingSince: when the current wait
	// began, null while the conversation does not wait.
	LastActivityAt time.Time  `json:"last_activity_at"`
	WaitingSince   *time.Time `json:"waiting_since"`
	// The operator desk (issue 19): open or resolved, and the dashboard
	// user handling it ("" when none, or taken over through the API).
	Status       domain.Status `json:"status"`
	AssigneeID   string        `json:"assignee_id"`
	AssigneeName string        `json:"assignee_name"`
	// Who the visitor said they are (identity verification): user_id only
	// when verified, name and email as given (or left on the offline form).
	UserID   string `json:"user_id"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	Verified bool   `json:"verified"`
}

type messageJSON struct {
	ID           string      `json:"id"`
	Role         domain.Role `json:"role"`
	Text         string      `json:"text"`
	CreatedAt    time.Time   `json:"created_at"`
	OperatorName string      `json:"operator_name,omitempty"`
	// What an AI reply from an LLM cost; absent on every other message.
	PromptTokens     int64 `json:"prompt_tokens,omitempty"`
	CompletionTokens int64 `json:"completion_tokens,omitempty"`
	// The visitor's thumbs on an AI answer (issue 20); absent when they
	// gave none.
	Helpful *bool `json:"helpful,omitempty"`
}

func toSummary(c domain.Conversation) conversationSummary {
	s := conversationSummary{
		ID: c.ID, AgentID: c.AgentID, VisitorID: c.VisitorID, Mode: c.Mode, PageURL: c.PageURL,
		CreatedAt: c.CreatedAt, LastMessage: c.LastMessage, Waiting: c.Waiting,
		Status: c.Status, AssigneeID: c.AssigneeID, AssigneeName: c.AssigneeName,
		UserID: c.UserID, Name: c.Name, Email: c.Email, Verified: c.Verified,
	}
	if !c.LastMessageAt.IsZero() {
		t := c.LastMessageAt
		s.LastMessageAt = &t
	}
	s.LastActivityAt = c.LastActivityAt
	if c.Waiting && !c.WaitingSince.IsZero() {
		t := c.WaitingSince
		s.WaitingSince = &t
	}
	return s
}

func toMessageJSON(m domain.Message) messageJSON {
	return messageJSON{ID: strconv.FormatInt(m.Seq, 10), Role: m.Role, Text: m.Text, CreatedAt: m.CreatedAt, OperatorName: m.OperatorName,
		PromptTokens: m.Tokens.Prompt, CompletionTokens: m.Tokens.Completion, Helpful: m.Helpful}
}

// ListConversations: newest first by start, or with sort=activity by
// latest activity (as the dashboard's inbox); filters agent_id, mode,
// waiting, status and assignee; pages of limit (1-100, default 50) with
// the opaque next_cursor passed as cursor.
func (a *API) ListConversations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.ConversationFilter{AgentID: q.Get("agent_id"), Mode: domain.Mode(q.Get("mode")), Before: q.Get("cursor")}
	switch f.Mode {
	case "", domain.ModeAI, domain.ModeHuman:
	default:
		httpx.Error(w, r, domain.Invalid("mode must be ai or human"))
		return
	}
	if s := q.Get("waiting"); s != "" {
		waiting, err := strconv.ParseBool(s)
		if err != nil {
			httpx.Error(w, r, domain.Invalid("waiting must be true or false"))
			return
		}
		f.Waiting = &waiting
	}
	if err := deskFilter(q, &f); err != nil {
		httpx.Error(w, r, err)
		return
	}
	switch q.Get("sort") {
	case "", "created": // the documented order since the first release
	case "activity":
		f.Order = store.ByActivity
	default:
		httpx.Error(w, r, domain.Invalid("sort must be created or activity"))
		return
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			httpx.Error(w, r, domain.Invalid("limit must be a whole number from 1 to 100"))
			return
		}
		f.Limit = n
	}
	page, err := a.store.Conversations(r.Context(), account(r).ID, f)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := struct {
		Conversations []conversationSummary `json:"conversations"`
		NextCursor    string                `json:"next_cursor,omitempty"`
	}{Conversations: make([]conversationSummary, 0, len(page.Conversations)), NextCursor: page.Next}
	for _, c := range page.Conversations {
		out.Conversations = append(out.Conversations, toSummary(c))
	}
	httpx.JSON(w, http.StatusOK, out)
}

// GetConversation: the summary and a page of the transcript, the newest
// limit messages (1-500, default 100) before the message whose id is
// before (default: the newest), oldest first; next_before, when older
// messages exist, is the id to pass as before for them.
func (a *API) GetConversation(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := store.DefaultMessagePage
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > store.MaxMessagePage {
			httpx.Error(w, r, domain.Invalid("limit must be a whole number from 1 to 500"))
			return
		}
		limit = n
	}
	var before int64
	if s := q.Get("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			httpx.Error(w, r, store.ErrBadMessageCursor)
			return
		}
		before = n
	}
	conv, err := a.ownConversation(r)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	page, err := a.store.LatestMessages(r.Context(), conv.ID, before, limit)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	// The whole conversation's tokens, not only this page's.
	tokens, err := a.store.ConversationTokens(r.Context(), conv.ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := struct {
		conversationSummary
		PromptTokens     int64         `json:"prompt_tokens"`
		CompletionTokens int64         `json:"completion_tokens"`
		Messages         []messageJSON `json:"messages"`
		NextBefore       string        `json:"next_before,omitempty"`
	}{conversationSummary: toSummary(conv), PromptTokens: tokens.Prompt, CompletionTokens: tokens.Completion,
		Messages: make([]messageJSON, 0, len(page.Messages))}
	for _, m := range page.Messages {
		out.Messages = append(out.Messages, toMessageJSON(m))
	}
	if page.More {
		out.NextBefore = out.Messages[0].ID
	}
	httpx.JSON(w, http.StatusOK, out)
}

func (a *API) ownConversation(r *http.Request) (domain.Conversation, error) {
	conv, err := a.store.Conversation(r.Context(), r.PathValue("id"))
	if err == nil && conv.AccountID != account(r).ID {
		return domain.Conversation{}, domain.ErrNotFound
	}
	return conv, err
}

type modeResponse struct {
	ID      string      `json:"id"`
	Mode    domain.Mode `json:"mode"`
	Changed bool        `json:"changed"`
}

func (a *API) TakeOver(w http.ResponseWriter, r *http.Request) {
	a.setMode(w, r, domain.ModeHuman, a.chat.TakeOver)
}

func (a *API) Release(w http.ResponseWriter, r *http.Request) {
	a.setMode(w, r, domain.ModeAI, a.chat.Release)
}

func (a *API) setMode(w http.ResponseWriter, r *http.Request, mode domain.Mode,
	change func(ctx context.Context, accountID, conversationID string) (bool, error)) {
	changed, err := change(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, modeResponse{ID: r.PathValue("id"), Mode: mode, Changed: changed})
}

// OperatorMessage posts an operator reply; it takes the conversation over
// if the AI was handling it. operator_name defaults to the account's name.
func (a *API) OperatorMessage(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Text         *string `json:"text"`
		OperatorName string  `json:"operator_name"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Text == nil {
		httpx.Error(w, r, domain.Invalid("text is required"))
		return
	}
	acc := account(r)
	// A name the client sent is checked as sent; the account's name,
	// which the client did not send, is shortened if it must be.
	op := chat.Operator{Name: in.OperatorName, Chosen: true}
	if strings.TrimSpace(in.OperatorName) == "" {
		op = chat.Operator{Name: acc.Name}
	}
	msg, err := a.chat.OperatorReply(r.Context(), acc.ID, r.PathValue("id"), op, *in.Text)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, toMessageJSON(msg))
}
