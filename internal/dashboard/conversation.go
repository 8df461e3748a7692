package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"parley/internal/canned"
	"parley/internal/chat"
	"parley/internal/deskview"
	"parley/internal/domain"
	"parley/internal/store"
)

// transcriptPage is how many messages a conversation page shows at once:
// the newest, with a link to the ones before them. A conversation may hold
// thousands (those from before the cap on messages even more), and the
// page must stay small however long it is.
const transcriptPage = store.DefaultMessagePage

type conversationData struct {
	Conv      domain.Conversation
	Status    string
	AgentName string
	Messages  []domain.Message
	Mine      bool // the signed-in user handles it
	// VisitorTyping: the visitor's widget said they type (chat.Typing);
	// app.js refreshes the page again once that may have gone stale.
	VisitorTyping bool
	Holder        string
	Lost          bool // a takeover just lost the race
	Draft         string
	Before        int64  // the page shows the messages before this seq; 0: the newest
	Older         string // the URL of the page before this one; "" when none
	// Tokens are the LLM tokens of the conversation's AI replies, on the
	// full page only (the live part does not show them); zero is not shown.
	Tokens domain.Tokens
	// Others are the same verified contact's other conversations (by
	// user_id across the account), newest first, on the full page only.
	Others []domain.Conversation
	// The operator desk: whether resolve/reopen is offered (a desk is
	// set), and the team an owner may assign to.
	Desk      bool
	Assignees []assignee
	// Notes are the team's private notes (issue 19), never shown to the
	// visitor; Canned the canned replies the reply box expands, picked
	// for the visitor's language and filled (canned.go). DeskOn: the
	// dashboard has the canned service (the forms show).
	Notes     []store.Note
	Canned    []canned.Suggestion
	NoteDraft string
	DeskOn    bool
	// The split view (issue 19), on the full page only: the inbox's list
	// on the left (its filters from this page's query) and the visitor's
	// details on the right (nil without a desk service).
	List    inboxData
	Details *deskview.Details
	// Rating is the visitor's CSAT rating (issue 19), on the full page
	// only; nil when none or without Options.Offline.
	Rating *store.Rating
}

// conversation loads one of the signed-in user's account's conversations;
// another account's is domain.ErrNotFound, like a missing one.
func (d *Dashboard) conversation(r *http.Request) (domain.Conversation, error) {
	c, err := d.Store.Conversation(r.Context(), r.PathValue("id"))
	if err == nil && c.AccountID != user(r).AccountID {
		return domain.Conversation{}, domain.ErrNotFound
	}
	return c, err
}

func (d *Dashboard) Conversation(w http.ResponseWriter, r *http.Request) {
	d.showConversation(w, r, http.StatusOK, conversationData{Lost: r.URL.Query().Get("lost") == "1"}, "")
}

func (d *Dashboard) showConversation(w http.ResponseWriter, r *http.Request, code int, data conversationData, errKey string) {
	c, err := d.conversation(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	// ?before= pages back through the transcript; a before that is not one
	// of this conversation's messages is a page that does not exist.
	var before int64
	if s := r.URL.Query().Get("before"); s != "" {
		if before, err = strconv.ParseInt(s, 10, 64); err != nil || before < 1 {
			d.fail(w, r, domain.ErrNotFound)
			return
		}
	}
	page, err := d.Store.LatestMessages(r.Context(), c.ID, before, transcriptPage)
	if errors.Is(err, store.ErrBadMessageCursor) {
		err = domain.ErrNotFound
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	msgs := page.Messages
	data.Before = before
	if page.More {
		data.Older = "/conversations/" + url.PathEscape(c.ID) + "?before=" + strconv.FormatInt(msgs[0].Seq, 10)
	}
	ag, err := d.Store.Agent(r.Context(), c.AccountID, c.AgentID)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		d.fail(w, r, err)
		return
	}
	data.Conv, data.Messages, data.AgentName, data.Status = c, msgs, ag.ChatbotName, status(c)
	data.Mine = c.Mode == domain.ModeHuman && c.AssigneeID == user(r).ID
	data.Holder = c.AssigneeName
	if d.Chat != nil {
		data.VisitorTyping = d.Chat.VisitorIsTyping(c.ID)
	}
	data.Desk = d.Desk != nil
	if data.Desk && user(r).IsOwner() {
		if data.Assignees, err = d.assignees(r); err != nil {
			d.fail(w, r, err)
			return
		}
	}
	if err := d.deskExtras(r, &data, ag); err != nil {
		d.fail(w, r, err)
		return
	}
	// The newest messages shown are read: the full page and each live
	// refresh of it move the user's mark (never an older page's).
	if d.DeskView != nil && before == 0 && len(msgs) > 0 {
		if err := d.DeskView.Seen(r.Context(), user(r).ID, c.ID, msgs[len(msgs)-1].Seq); err != nil {
			d.fail(w, r, err)
			return
		}
	}
	if r.URL.Query().Get("partial") == "1" {
		d.renderPartial(w, r, "conversation", "live", data)
		return
	}
	if data.Tokens, err = d.Store.ConversationTokens(r.Context(), c.ID); err != nil {
		d.fail(w, r, err)
		return
	}
	if d.Offline != nil {
		rt, err := d.Offline.Rating(r.Context(), c.AccountID, c.ID)
		switch {
		case err == nil:
			data.Rating = &rt
		case !errors.Is(err, domain.ErrNotFound):
			d.fail(w, r, err)
			return
		}
	}
	if c.Verified && c.UserID != "" {
		page, err := d.Store.Conversations(r.Context(), c.AccountID, store.ConversationFilter{UserID: c.UserID, Limit: 20})
		if err != nil {
			d.fail(w, r, err)
			return
		}
		for _, o := range page.Conversations {
			if o.ID != c.ID {
				data.Others = append(data.Others, o)
			}
		}
	}
	if data.List, err = d.inboxList(r, c.ID); err != nil && !errors.Is(err, store.ErrBadCursor) {
		d.fail(w, r, err)
		return
	}
	if d.DeskView != nil {
		det, err := d.DeskView.Details(r.Context(), c)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.Details = &det
	}
	d.render(w, r, code, "conversation", view{Title: "conv.title", Nav: "inbox", Error: errKey, Data: data})
}

// TakeOver: of two operators clicking at once, one wins; the other comes
// back to the page, which says who has it.
func (d *Dashboard) TakeOver(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	_, won, err := d.Chat.TakeOverAs(r.Context(), u.AccountID, r.PathValue("id"), u)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	target := "/conversations/" + r.PathValue("id")
	if !won {
		target += "?lost=1"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func (d *Dashboard) Release(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	if _, err := d.Chat.Release(r.Context(), u.AccountID, r.PathValue("id")); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/conversations/"+r.PathValue("id"), http.StatusSeeOther)
}

// Reply sends an operator message. Replying to an AI-handled conversation
// takes it over and assigns it to the user in the same write; a reply that
// is refused (empty, too long) changes nothing, the mode included.
func (d *Dashboard) Reply(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	if status, key := readForm(w, r, maxReplyForm); key != "" {
		d.showConversation(w, r, status, conversationData{}, key)
		return
	}
	text := r.PostFormValue("text")
	c, err := d.conversation(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	_, err = d.Chat.OperatorReply(r.Context(), u.AccountID, c.ID, chat.UserOperator(u), text)
	var invalid *domain.InvalidError
	if errors.As(err, &invalid) {
		d.showConversation(w, r, http.StatusBadRequest, conversationData{Draft: text}, "conv.replyerr")
		return
	}
	if errors.Is(err, domain.ErrConversationFull) {
		d.showConversation(w, r, http.StatusForbidden, conversationData{Draft: text}, "conv.full")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/conversations/"+c.ID+"#reply", http.StatusSeeOther)
}

// Typing is the reply box's "I am typing" signal (app.js sends it at most
// every 3 seconds while the operator types): the visitor's widget shows
// "<name> is typing…" for a few seconds (chat.Typing). 204.
func (d *Dashboard) Typing(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	if err := d.Chat.OperatorTyping(r.Context(), u.AccountID, r.PathValue("id"), chat.UserOperator(u)); err != nil {
		d.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}
