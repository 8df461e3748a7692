package store

import (
	"slices"
	"time"

	"parley/internal/domain"
)

// Admits reports whether conversation c accepts message n: false when n
// requires a handling mode c is not in (see NewMessage.RequireMode).
func (n NewMessage) Admits(c domain.Conversation) bool {
	return n.RequireMode == "" || n.RequireMode == c.Mode
}

// Fits reports whether a conversation that holds count messages (of every
// role) takes n under the cap n.MaxMessages (0: no cap):
//   - a visitor's message only while it holds fewer than the cap;
//   - an AI reply also when it holds exactly the cap, so the visitor's
//     message that reached it is still answered (the conversation ends at
//     the cap or one past it);
//   - an operator's message while it holds fewer than twice the cap: an
//     operator can always answer a full conversation, and an API script
//     still cannot grow it without bound.
func (n NewMessage) Fits(count int) bool {
	switch {
	case n.MaxMessages <= 0:
		return true
	case n.Role == domain.RoleAI:
		return count <= n.MaxMessages
	case n.Role == domain.RoleOperator:
		return count/2 < n.MaxMessages // count < 2×cap, without overflow
	}
	return count < n.MaxMessages
}

// Apply returns conversation c as it is after message n, created at at, is
// added: the mode n sets (and the assignee, when n takes it from the AI),
// the end of the wait when a human handles it (or
// the start of one that n asks for), no assignee once the AI handles it,
// the misses of an AI message, the last message and the latest activity,
// and what the outcome rule reads (domain.Conversation.Outcome): whether
// the visitor asked and the AI answered, the handoff and the operators'
// first message.
// Both stores write exactly this, so they cannot drift apart.
//
// A wait keeps the time it began (WaitingSince) through every message
// while it lasts: a visitor writing again while waiting does not restart
// it. The activity never moves back (a message given an older time).
func (n NewMessage) Apply(c domain.Conversation, at time.Time) domain.Conversation {
	if n.SetMode == domain.ModeHuman && c.Mode != domain.ModeHuman {
		// Taken from the AI by this message: assigned as TakeOver would.
		c.AssigneeID, c.AssigneeName = n.AssigneeID, n.AssigneeName
	}
	if n.SetMode != "" {
		c.Mode = n.SetMode
	}
	if c.Mode == domain.ModeHuman {
		c.Waiting = false
	} else {
		// Handed back to the AI: nobody holds it any more, as in SetMode.
		c.AssigneeID, c.AssigneeName = "", ""
		if n.SetWaiting {
			c.Waiting = true
		}
	}
	switch {
	case !c.Waiting:
		c.WaitingSince = time.Time{}
	case c.WaitingSince.IsZero():
		c.WaitingSince = at // the wait begins with this message
	}
	if c.Mode == domain.ModeHuman || c.Waiting {
		c = c.HandOff(at)
	}
	switch n.Role {
	case domain.RoleVisitor:
		c.Asked = true
	case domain.RoleAI:
		if n.Unanswered {
			c.Misses++
		} else {
			c.Misses = 0
			c.Answered = true
		}
	case domain.RoleOperator:
		if c.FirstOperatorAt.IsZero() {
			c.FirstOperatorAt = at
		}
	}
	c.LastMessageAt, c.LastMessage = at, n.Text
	if at.After(c.LastActivityAt) {
		c.LastActivityAt = at
	}
	return c
}

// Asked is the question an AI reply that could not answer was asked, for
// the knowledge gaps (QuestionUnanswered): n.Question, which may be "" (the
// store then takes the newest visitor message before the reply). ok is
// false for every other message, which records no question.
func (n NewMessage) Asked() (question string, ok bool) {
	return n.Question, n.Role == domain.RoleAI && n.Unanswered
}

// NewestFirst makes a MessagePage of up to limit+1 messages read newest
// first: the extra one, if read, only tells that older ones exist.
func NewestFirst(msgs []domain.Message, limit int) MessagePage {
	p := MessagePage{Messages: msgs}
	if len(msgs) > limit {
		p.Messages, p.More = msgs[:limit], true
	}
	slices.Reverse(p.Messages)
	return p
}
