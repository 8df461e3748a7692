package widgetapi

import (
	"net/http"

	"parley/internal/chat"
	"parley/internal/domain"
)

type feedbackRequest struct {
	conversationRef
	// A string, as chat gave it: message ids are seqs written in decimal
	// (the poll's "id" and the management API's are the same).
	MessageID *string `json:"message_id"`
	Helpful   *bool   `json:"helpful"`
}

// Feedback is POST /api/widget/feedback (ours, issue 20): the visitor's
// thumbs up or down on an AI answer. 204; 404 when the message is not an
// AI answer of the conversation.
func (a *API) Feedback(w http.ResponseWriter, r *http.Request) {
	var req feedbackRequest
	check := func() error {
		if err := req.missing(); err != nil {
			return err
		}
		switch {
		case req.MessageID == nil:
			return domain.Invalid("message_id is required")
		case req.Helpful == nil:
			return domain.Invalid("helpful is required (true or false)")
		}
		return nil
	}
	noContent(w, r, &req, check, func() error {
		return a.chat.Feedback(r.Context(), chat.FeedbackInput{Key: *req.Key, ConversationID: *req.ConversationID,
			Origin: r.Header.Get("Origin"), VisitorID: req.VisitorID, MessageID: *req.MessageID, Helpful: *req.Helpful})
	})
}
