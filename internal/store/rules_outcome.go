package store

import (
	"time"

	"parley/internal/domain"
)

// HandedOffOutcomes are the outcomes (domain.Conversation.Outcome) of a
// conversation once a person was asked for or took it over: asked when
// the visitor wrote in it, notAsked when not. Once handed off nothing else
// the rule reads matters (TestHandedOffOutcomes checks it against the
// rule), so the writes that hand conversations off without reading them
// — SetMode, SetWaiting, TakeOver, Assign, AutoAssign, DeleteUser's
// hand-back — store one of these two, by the row's asked, in the same
// UPDATE that records the handoff's time.
func HandedOffOutcomes() (asked, notAsked domain.Outcome) {
	handed := domain.Conversation{HandedAt: time.Unix(0, 0)}
	notAsked = handed.Outcome()
	handed.Asked = true
	return handed.Outcome(), notAsked
}
