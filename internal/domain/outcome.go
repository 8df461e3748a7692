package domain

import "time"

// Outcome is what came of a conversation, for the owner's reports (issue
// 20, docs/dashboard.md "Insights"). It is worked out from what happened
// in the conversation (Conversation.Outcome), never set by hand; both
// stores store what Outcome returns whenever one of its inputs changes, so
// the reports group by a column instead of re-reading transcripts.
type Outcome string

const (
	// OutcomeAbandoned: the visitor never wrote (the widget was opened,
	// the greeting shown, nothing asked).
	OutcomeAbandoned Outcome = "abandoned"
	// OutcomeHandedOff: a person was asked for (the visitor asked, or the
	// agent missed twice) or an operator took the conversation over, at
	// any point.
	OutcomeHandedOff Outcome = "handed_off"
	// OutcomeUnanswered: no handoff, but the agent did not help: its last
	// reply could not answer, it never answered at all, or the visitor
	// marked one of its answers "Not helpful".
	OutcomeUnanswered Outcome = "unanswered"
	// OutcomeResolved: resolved by the AI: the visitor asked, the agent
	// answered, nobody was asked for, its last reply answered, and no
	// answer was marked "Not helpful".
	OutcomeResolved Outcome = "resolved"
)

// Outcomes lists every outcome in the order the reports show them.
var Outcomes = []Outcome{OutcomeResolved, OutcomeHandedOff, OutcomeUnanswered, OutcomeAbandoned}

// Outcome is the one rule that says what came of c (see the constants).
// A handoff wins over everything but an empty conversation: once a person
// was asked for, the AI did not resolve it, whatever it answered before.
func (c Conversation) Outcome() Outcome {
	switch {
	case !c.Asked:
		return OutcomeAbandoned
	case !c.HandedAt.IsZero():
		return OutcomeHandedOff
	case c.Misses > 0 || c.NotHelpful > 0 || !c.Answered:
		return OutcomeUnanswered
	}
	return OutcomeResolved
}

// HandOff records that a person was asked for, or took c over, at at: the
// first time only (HandedAt never moves once set).
func (c Conversation) HandOff(at time.Time) Conversation {
	if c.HandedAt.IsZero() {
		c.HandedAt = at
	}
	return c
}

// FirstResponse is how long the visitor waited for a person: from the
// handoff to the operators' first message. ok is false when c was never
// handed off or no operator wrote. An operator who took c over with their
// own message (no wait before) answered at once: 0.
func (c Conversation) FirstResponse() (d time.Duration, ok bool) {
	if c.HandedAt.IsZero() || c.FirstOperatorAt.IsZero() {
		return 0, false
	}
	return max(c.FirstOperatorAt.Sub(c.HandedAt), 0), true
}
