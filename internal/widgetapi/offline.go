package widgetapi

import (
	"net/http"

	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/httpx"
)

// The widget's "nobody left waiting" routes (issue 19): the offline form
// and the rating. Both answer 204 with no body.

type contactRequest struct {
	Key            *string `json:"key"`
	ConversationID *string `json:"conversation_id"`
	VisitorID      string  `json:"visitor_id"`
	Email          string  `json:"email"`
	Name           string  `json:"name"`
}

// Contact is POST /api/widget/contact.
func (a *API) Contact(w http.ResponseWriter, r *http.Request) {
	var req contactRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if req.Key == nil {
		httpx.Error(w, r, domain.Invalid("key is required"))
		return
	}
	if req.ConversationID == nil {
		httpx.Error(w, r, domain.Invalid("conversation_id is required"))
		return
	}
	err := a.chat.Contact(r.Context(), chat.ContactInput{Key: *req.Key, ConversationID: *req.ConversationID,
		Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID, Email: req.Email, Name: req.Name})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type ratingRequest struct {
	Key            *string `json:"key"`
	ConversationID *string `json:"conversation_id"`
	VisitorID      string  `json:"visitor_id"`
	Rating         *int    `json:"rating"`
	Comment        string  `json:"comment"`
}

// Rating is POST /api/widget/rating.
func (a *API) Rating(w http.ResponseWriter, r *http.Request) {
	var req ratingRequest
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
	case req.Rating == nil:
		httpx.Error(w, r, domain.Invalid("rating is required"))
		return
	}
	err := a.chat.Rate(r.Context(), chat.RateInput{Key: *req.Key, ConversationID: *req.ConversationID,
		Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID, Rating: *req.Rating, Comment: req.Comment})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type typingRequest struct {
	Key            *string `json:"key"`
	ConversationID *string `json:"conversation_id"`
	VisitorID      string  `json:"visitor_id"`
}

// Typing is POST /api/widget/typing (ours, issue 19): the visitor is
// typing. 204; the operator's conversation page shows it for a few
// seconds.
func (a *API) Typing(w http.ResponseWriter, r *http.Request) {
	var req typingRequest
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
	}
	err := a.chat.VisitorTyping(r.Context(), chat.VisitorTypingInput{Key: *req.Key, ConversationID: *req.ConversationID,
		Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
