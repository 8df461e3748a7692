package storetest

import (
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// testOffline: business hours per account; a visitor's contact lands on
// the conversation unverified, and a verified identity is kept (only the
// time and language are recorded); the last poll
// only moves forward; wait alerts per user of the account; one rating per
// conversation, changeable, summed per period. Other accounts see none of
// it.
func testOffline(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := setup(t, s, many)
	b := setup(t, s, many)

	// Business hours.
	if h, err := s.BusinessHours(ctx, a.account.ID); err != nil || h != "" {
		t.Fatalf("BusinessHours of a new account = %q, %v", h, err)
	}
	noErr(t, "SetBusinessHours", s.SetBusinessHours(ctx, a.account.ID, `{"enabled":true}`))
	noErr(t, "SetBusinessHours again", s.SetBusinessHours(ctx, a.account.ID, `{"enabled":false}`))
	if h, _ := s.BusinessHours(ctx, a.account.ID); h != `{"enabled":false}` {
		t.Fatalf("BusinessHours = %q", h)
	}
	if h, _ := s.BusinessHours(ctx, b.account.ID); h != "" {
		t.Fatalf("another account's BusinessHours = %q", h)
	}
	if err := s.SetBusinessHours(ctx, "no-such-account", `{}`); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("SetBusinessHours of no account: %v, want ErrNotFound", err)
	}

	// A visitor's contact, with the widget's language then.
	c := a.conversation(t, s, base)
	if g, err := s.VisitorContact(ctx, c.ID); err != nil || g != (store.ContactGiven{}) {
		t.Fatalf("VisitorContact before = %+v, %v", g, err)
	}
	noErr(t, "SetVisitorContact", s.SetVisitorContact(ctx, c.ID, store.NewContact{Name: "Ana", Email: "ana@example.com", Lang: "ro", At: base.Add(time.Minute)}))
	got, err := s.Conversation(ctx, c.ID)
	noErr(t, "Conversation", err)
	if got.Name != "Ana" || got.Email != "ana@example.com" || got.Verified || got.UserID != "" {
		t.Fatalf("conversation after SetVisitorContact = %+v", got)
	}
	if g, _ := s.VisitorContact(ctx, c.ID); !g.At.Equal(base.Add(time.Minute)) || g.Lang != "ro" {
		t.Fatalf("VisitorContact = %+v", g)
	}
	// Left again in another language (or by a widget that does not say):
	// the latest wins.
	noErr(t, "SetVisitorContact again", s.SetVisitorContact(ctx, c.ID, store.NewContact{Name: "Ana", Email: "ana@example.com", At: base.Add(2 * time.Minute)}))
	if g, _ := s.VisitorContact(ctx, c.ID); !g.At.Equal(base.Add(2*time.Minute)) || g.Lang != "" {
		t.Fatalf("VisitorContact after leaving it again = %+v", g)
	}
	if err := s.SetVisitorContact(ctx, "nope", store.NewContact{Email: "x@example.com", At: base}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("SetVisitorContact of no conversation: %v, want ErrNotFound", err)
	}
	n := a.newConversation(base)
	n.Identity = domain.VerifiedIdentity{UserID: "u1", Name: "Ion", Email: "ion@example.com", Verified: true}
	verified, err := s.CreateConversation(ctx, n)
	noErr(t, "CreateConversation", err)
	noErr(t, "SetVisitorContact of a verified conversation", s.SetVisitorContact(ctx, verified.ID, store.NewContact{Name: "Eve", Email: "eve@example.com", Lang: "ru", At: base}))
	if got, _ := s.Conversation(ctx, verified.ID); got.Email != "ion@example.com" || got.Name != "Ion" || !got.Verified {
		t.Fatalf("verified conversation changed: %+v", got)
	}
	if g, _ := s.VisitorContact(ctx, verified.ID); !g.At.Equal(base) || g.Lang != "ru" {
		t.Fatalf("VisitorContact of the verified conversation = %+v", g)
	}

	// The visitor's last poll only moves forward.
	if at, _ := s.VisitorPolledAt(ctx, c.ID); !at.IsZero() {
		t.Fatalf("VisitorPolledAt before any poll = %v", at)
	}
	noErr(t, "TouchVisitor", s.TouchVisitor(ctx, c.ID, base.Add(2*time.Minute)))
	noErr(t, "TouchVisitor earlier", s.TouchVisitor(ctx, c.ID, base.Add(time.Minute)))
	if at, _ := s.VisitorPolledAt(ctx, c.ID); !at.Equal(base.Add(2 * time.Minute)) {
		t.Fatalf("VisitorPolledAt = %v, want the later poll", at)
	}
	noErr(t, "TouchVisitor of no conversation", s.TouchVisitor(ctx, "nope", base))

	// Wait alerts.
	users, err := s.Users(ctx, a.account.ID)
	noErr(t, "Users", err)
	owner := users[0]
	if m, err := s.WaitAlert(ctx, a.account.ID, owner.ID); err != nil || m != 0 {
		t.Fatalf("WaitAlert before = %d, %v", m, err)
	}
	if l, _ := s.WaitAlerts(ctx, a.account.ID); len(l) != 0 {
		t.Fatalf("WaitAlerts before = %+v", l)
	}
	noErr(t, "SetWaitAlert", s.SetWaitAlert(ctx, a.account.ID, owner.ID, 5))
	if l, _ := s.WaitAlerts(ctx, a.account.ID); len(l) != 1 || l[0].UserID != owner.ID || l[0].Minutes != 5 || l[0].Email != owner.Email || l[0].Lang != "" {
		t.Fatalf("WaitAlerts = %+v", l)
	}
	// The user's dashboard language comes with their alert.
	noErr(t, "SetUserLanguage", s.SetUserLanguage(ctx, owner.ID, "ru"))
	noErr(t, "SetUserLanguage again", s.SetUserLanguage(ctx, owner.ID, "ro"))
	if l, _ := s.WaitAlerts(ctx, a.account.ID); len(l) != 1 || l[0].Lang != "ro" {
		t.Fatalf("WaitAlerts after SetUserLanguage = %+v", l)
	}
	if err := s.SetUserLanguage(ctx, "usr_missing", "ro"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("SetUserLanguage of no user: %v, want ErrNotFound", err)
	}
	if m, _ := s.WaitAlert(ctx, a.account.ID, owner.ID); m != 5 {
		t.Fatalf("WaitAlert = %d", m)
	}
	if err := s.SetWaitAlert(ctx, b.account.ID, owner.ID, 1); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another account's SetWaitAlert: %v, want ErrNotFound", err)
	}
	if _, err := s.WaitAlert(ctx, b.account.ID, owner.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another account's WaitAlert: %v, want ErrNotFound", err)
	}
	noErr(t, "SetWaitAlert off", s.SetWaitAlert(ctx, a.account.ID, owner.ID, 0))
	if l, _ := s.WaitAlerts(ctx, a.account.ID); len(l) != 0 {
		t.Fatalf("WaitAlerts after turning off = %+v", l)
	}

	// Ratings.
	if _, err := s.Rating(ctx, c.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("Rating before: %v, want ErrNotFound", err)
	}
	noErr(t, "SetRating", s.SetRating(ctx, store.Rating{ConversationID: c.ID, Rating: 2, Comment: "slow", At: base}))
	noErr(t, "SetRating change", s.SetRating(ctx, store.Rating{ConversationID: c.ID, Rating: 5, Comment: "great after all", At: base.Add(time.Hour)}))
	r, err := s.Rating(ctx, c.ID)
	noErr(t, "Rating", err)
	if r.Rating != 5 || r.Comment != "great after all" || r.AccountID != a.account.ID || !r.At.Equal(base.Add(time.Hour)) {
		t.Fatalf("Rating = %+v", r)
	}
	noErr(t, "SetRating 2", s.SetRating(ctx, store.Rating{ConversationID: verified.ID, Rating: 3, At: base.Add(2 * time.Hour)}))
	for _, bad := range []int{0, 6} {
		if err := s.SetRating(ctx, store.Rating{ConversationID: c.ID, Rating: bad, At: base}); err == nil {
			t.Errorf("SetRating(%d) passed", bad)
		}
	}
	if err := s.SetRating(ctx, store.Rating{ConversationID: "nope", Rating: 3, At: base}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("SetRating of no conversation: %v, want ErrNotFound", err)
	}
	st, err := s.RatingStats(ctx, a.account.ID, base, base.Add(24*time.Hour))
	noErr(t, "RatingStats", err)
	if st.Count != 2 || st.Sum != 8 || st.Scores != [5]int{0, 0, 1, 0, 1} || st.Average() != 4 {
		t.Fatalf("RatingStats = %+v", st)
	}
	if st, _ := s.RatingStats(ctx, a.account.ID, base, base.Add(90*time.Minute)); st.Count != 1 || st.Sum != 5 {
		t.Fatalf("RatingStats of the first 90 minutes = %+v", st)
	}
	if st, _ := s.RatingStats(ctx, b.account.ID, base, base.Add(24*time.Hour)); st.Count != 0 {
		t.Fatalf("another account's RatingStats = %+v", st)
	}
}
