package store

import (
	"context"
	"time"
)

// Offline is what keeps a visitor from waiting for nobody (issue 19,
// "Nobody left waiting"): each account's business hours, the contact a
// visitor leaves when nobody can answer, when each conversation's visitor
// last polled, the operators' wait alerts and the visitors' ratings
// (CSAT). Rows of a conversation go with it (retention, erasure).
type Offline interface {
	// BusinessHours reads the account's hours as JSON (hours.Hours), ""
	// when none are set; SetBusinessHours replaces them.
	BusinessHours(ctx context.Context, accountID string) (string, error)
	SetBusinessHours(ctx context.Context, accountID, hoursJSON string) error
	// SetVisitorContact stores the name and e-mail address a visitor left
	// (the offline form) in the conversation's visitor_name and
	// visitor_email, not verified, and records when and in which language
	// (VisitorContact). A verified conversation keeps its verified name
	// and address (only the time and language are recorded: the team
	// answers the address it knows). domain.ErrNotFound when there is no
	// such conversation.
	SetVisitorContact(ctx context.Context, conversationID string, c NewContact) error
	// VisitorContact reads when and in which language the visitor left a
	// contact; the zero ContactGiven when they did not (or there is no
	// such conversation).
	VisitorContact(ctx context.Context, conversationID string) (ContactGiven, error)
	// TouchVisitor records that the conversation's visitor polled at at;
	// VisitorPolledAt reads it back, zero when never.
	TouchVisitor(ctx context.Context, conversationID string, at time.Time) error
	VisitorPolledAt(ctx context.Context, conversationID string) (time.Time, error)
	// SetWaitAlert sets after how many minutes of a conversation waiting
	// for a human the user is e-mailed (0: never); domain.ErrNotFound if
	// the user is not the account's. WaitAlerts lists the account's users
	// with a positive setting.
	SetWaitAlert(ctx context.Context, accountID, userID string, minutes int) error
	WaitAlert(ctx context.Context, accountID, userID string) (int, error)
	WaitAlerts(ctx context.Context, accountID string) ([]WaitAlert, error)
	// SetRating stores the visitor's rating of a conversation, replacing
	// an earlier one (one per conversation, changeable). Rating reads it,
	// domain.ErrNotFound when none. RatingStats sums the account's ratings
	// last changed in [from, to).
	SetRating(ctx context.Context, r Rating) error
	Rating(ctx context.Context, conversationID string) (Rating, error)
	RatingStats(ctx context.Context, accountID string, from, to time.Time) (RatingStats, error)
}

// NewContact is what a visitor leaves in the widget's offline form. Lang
// is the language the widget spoke to them in (one of i18n.Languages, or
// "" when the widget did not say): the team's reply mail is written in it.
type NewContact struct {
	Name, Email string
	Lang        string
	At          time.Time
}

// ContactGiven is when a visitor left a contact (zero: never) and the
// widget's language then ("" when not told).
type ContactGiven struct {
	At   time.Time
	Lang string
}

// WaitAlert is a user who wants an e-mail when a conversation has waited
// Minutes for a human. Lang is the user's dashboard language (Users'
// SetUserLanguage), "" when never recorded: the alert is written in it.
type WaitAlert struct {
	UserID  string
	Email   string
	Name    string
	Lang    string
	Minutes int
}

// Rating is a visitor's rating of a conversation: 1 to 5, with an
// optional comment. At is when it was last set.
type Rating struct {
	ConversationID string
	AccountID      string
	Rating         int
	Comment        string
	At             time.Time
}

// RatingStats are the ratings of a period: how many, their sum, and how
// many of each score (Scores[0] counts 1s … Scores[4] 5s).
type RatingStats struct {
	Count  int
	Sum    int
	Scores [5]int
}

// Average is the mean rating, 0 when there is none.
func (r RatingStats) Average() float64 {
	if r.Count == 0 {
		return 0
	}
	return float64(r.Sum) / float64(r.Count)
}

// Add counts n ratings of score (1–5) in r; other scores are ignored.
func (r *RatingStats) Add(score, n int) {
	if score < 1 || score > 5 {
		return
	}
	r.Scores[score-1] += n
	r.Count += n
	r.Sum += score * n
}
