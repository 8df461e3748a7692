package store

import (
	"time"

	"parley/internal/domain"
)

// Admits reports whether conversation c accepts message n: false when n
// requires a handling mode c is not in (see NewMessage.RequireMode).
func (n NewMessage) Admits(c domain.Conversation) bool {
	return n.RequireMode == "" || n.RequireMode == c.Mode
}

// Apply returns conversation c as it is after message n, created at at, is
// added: the mode n sets (and the assignee, when n takes it from the AI),
// the end of the wait when a human handles it (or
// the start of one that n asks for), no assignee once the AI handles it,
// the misses of an AI message, and the last message. Both stores write
// exactly this, so they cannot drift apart.
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
	if n.Role == domain.RoleAI {
		if n.Unanswered {
			c.Misses++
		} else {
			c.Misses = 0
		}
	}
	c.LastMessageAt, c.LastMessage = at, n.Text
	return c
}
