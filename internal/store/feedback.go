package store

import "parley/internal/domain"

// ApplyFeedback returns conversation c as it is after the visitor's thumbs
// on one of its AI answers goes from was (nil: none given) to helpful: the
// counts of both kinds follow, and with them the outcome
// (domain.Conversation.Outcome reads NotHelpful). Both stores write
// exactly this (SetFeedback), so they cannot drift apart.
func ApplyFeedback(c domain.Conversation, was *bool, helpful bool) domain.Conversation {
	if was != nil {
		if *was {
			c.Helpful--
		} else {
			c.NotHelpful--
		}
	}
	if helpful {
		c.Helpful++
	} else {
		c.NotHelpful++
	}
	// Never below zero: a count from before a thumbs was recorded on the
	// message cannot go negative (the columns' CHECK would refuse it).
	c.Helpful, c.NotHelpful = max(c.Helpful, 0), max(c.NotHelpful, 0)
	return c
}
