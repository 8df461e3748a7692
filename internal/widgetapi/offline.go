package widgetapi

import (
	"net/http"

	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/httpx"
)

// The widget's routes about one conversation that answer 204 with no body
// (issue 19): the offline form, the rating and the typing signal. They
// share their addressing fields and their checks.

// conversationRef names the conversation a request is about.
type conversationRef struct {
	Key            *string `json:"key"`
	ConversationID *string `json:"conversation_id"`
	VisitorID      string  `json:"visitor_id"`
}

// missing is the error for an absent required field, nil when both are
// there.
func (c conversationRef) missing() error {
	switch {
	case c.Key == nil:
		return domain.Invalid("key is required")
	case c.ConversationID == nil:
		return domain.Invalid("conversation_id is required")
	}
	return nil
}

// noContent decodes req, checks it with check, runs do and answers 204 or
// the error.
func noContent[T any](w http.ResponseWriter, r *http.Request, req *T, check func() error, do func() error) {
	err := httpx.Decode(w, r, req)
	if err == nil {
		err = check()
	}
	if err == nil {
		err = do()
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type contactRequest struct {
	conversationRef
	Email string `json:"email"`
	Name  string `json:"name"`
	Lang  string `json:"lang"`
}

// Contact is POST /api/widget/contact.
func (a *API) Contact(w http.ResponseWriter, r *http.Request) {
	var req contactRequest
	noContent(w, r, &req, func() error { return req.missing() }, func() error {
		return a.chat.Contact(r.Context(), chat.ContactInput{Key: *req.Key, ConversationID: *req.ConversationID,
			Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID, Email: req.Email, Name: req.Name, Lang: req.Lang})
	})
}

type ratingRequest struct {
	conversationRef
	Rating  *int   `json:"rating"`
	Comment string `json:"comment"`
}

// Rating is POST /api/widget/rating.
func (a *API) Rating(w http.ResponseWriter, r *http.Request) {
	var req ratingRequest
	check := func() error {
		if err := req.missing(); err != nil {
			return err
		}
		if req.Rating == nil {
			return domain.Invalid("rating is required")
		}
		return nil
	}
	noContent(w, r, &req, check, func() error {
		return a.chat.Rate(r.Context(), chat.RateInput{Key: *req.Key, ConversationID: *req.ConversationID,
			Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID, Rating: *req.Rating, Comment: req.Comment})
	})
}

// Typing is POST /api/widget/typing (ours, issue 19): the visitor is
// typing. 204; the operator's conversation page shows it for a few
// seconds.
func (a *API) Typing(w http.ResponseWriter, r *http.Request) {
	var req conversationRef
	noContent(w, r, &req, func() error { return req.missing() }, func() error {
		return a.chat.VisitorTyping(r.Context(), chat.VisitorTypingInput{Key: *req.Key, ConversationID: *req.ConversationID,
			Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID})
	})
}
