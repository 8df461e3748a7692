package chat

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// TakeOver and Release report whether the mode changed, wake the visitor
// and the inbox only when it did, and see no other account's conversation.
func TestTakeOverAndRelease(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	f.notes.take()
	wake := []string{conv, AccountTopic(f.account.ID)}
	steps := []struct {
		name    string
		do      func(ctx context.Context, accountID, id string) (bool, error)
		changed bool
		mode    domain.Mode
	}{
		{"take over", f.svc.TakeOver, true, domain.ModeHuman},
		{"take over again", f.svc.TakeOver, false, domain.ModeHuman},
		{"release", f.svc.Release, true, domain.ModeAI},
		{"release again", f.svc.Release, false, domain.ModeAI},
	}
	for _, s := range steps {
		changed, err := s.do(f.ctx, f.account.ID, conv)
		if err != nil || changed != s.changed || f.conv(conv).Mode != s.mode {
			t.Fatalf("%s: changed %v, %v, mode %s; want %v, %s", s.name, changed, err, f.conv(conv).Mode, s.changed, s.mode)
		}
		got := f.notes.take()
		if s.changed && !slices.Equal(got, wake) || !s.changed && got != nil {
			t.Fatalf("%s published %q", s.name, got)
		}
	}
	other := newAccount(f)
	for _, do := range []func(context.Context, string, string) (bool, error){f.svc.TakeOver, f.svc.Release} {
		if _, err := do(f.ctx, other.ID, conv); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another account: %v, want ErrNotFound", err)
		}
	}
	if _, err := f.svc.TakeOver(f.ctx, f.account.ID, "cnv_unknown"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown conversation: %v", err)
	}
}

func newAccount(f *fixture) domain.Account {
	f.t.Helper()
	a, err := f.store.CreateAccount(f.ctx, store.NewAccount{Email: "other-" + f.key[3:11] + "@example.com", Limits: domain.DefaultLimits})
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

// Of two dashboard users taking over at once, exactly one wins; the other
// is told who did.
func TestTakeOverAsOneWinner(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	users := make([]domain.User, 2)
	for i, name := range []string{"Ana", ""} {
		u, err := f.store.CreateUser(f.ctx, store.NewUser{AccountID: f.account.ID, Email: string(rune('a'+i)) + "-op@example.com", Name: name, PasswordHash: "x", Role: domain.UserOperator})
		if err != nil {
			t.Fatal(err)
		}
		users[i] = u
	}
	type outcome struct {
		conv domain.Conversation
		won  bool
		err  error
	}
	results := make(chan outcome, 2)
	for _, u := range users {
		go func() {
			c, won, err := f.svc.TakeOverAs(f.ctx, f.account.ID, conv, u)
			results <- outcome{c, won, err}
		}()
	}
	a, b := <-results, <-results
	if a.err != nil || b.err != nil || a.won == b.won {
		t.Fatalf("outcomes %+v and %+v, want one winner", a, b)
	}
	winner := a
	if b.won {
		winner = b
	}
	stored := f.conv(conv)
	if stored.Mode != domain.ModeHuman || stored.AssigneeID == "" || a.conv.AssigneeName != b.conv.AssigneeName || a.conv.AssigneeID != stored.AssigneeID {
		t.Fatalf("stored %+v; outcomes name %q and %q", stored, a.conv.AssigneeName, b.conv.AssigneeName)
	}
	// A user without a name is shown by email.
	if want := map[string]string{users[0].ID: "Ana", users[1].ID: users[1].Email}[winner.conv.AssigneeID]; stored.AssigneeName != want {
		t.Fatalf("assignee name %q, want %q", stored.AssigneeName, want)
	}
}

// An operator's reply is stored under the operator's name at the clock's
// time and takes the conversation over in the same write (assigning it to
// the dashboard user who replied); a refused reply changes nothing.
func TestOperatorReply(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ж", MaxOperatorName+5)
	tests := []struct {
		name     string
		op       Operator
		text     string
		wantName string // "" : refused as invalid
	}{
		{"API, no name", Operator{}, "Hello", "Operator"},
		{"API, blank name", Operator{Name: "  ", Chosen: true}, "Hello", "Operator"},
		{"API, chosen name", Operator{Name: " Maria ", Chosen: true}, "Hello", "Maria"},
		{"API, chosen name too long", Operator{Name: long, Chosen: true}, "Hello", ""},
		{"dashboard user", Operator{Name: "Ion", UserID: "usr_1"}, "Hello", "Ion"},
		{"account name too long is cut", Operator{Name: long, UserID: "usr_1"}, "Hello", long[:2*MaxOperatorName]},
		{"blank text", Operator{}, "   ", ""},
		{"text too long", Operator{}, strings.Repeat("a", MaxTextChars+1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, fixtureOptions{})
			conv := f.init()
			f.notes.take()
			f.clock.Set(start.Add(time.Hour))
			msg, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, tt.op, tt.text)
			c := f.conv(conv)
			if tt.wantName == "" {
				if !isInvalid(err) || c.Mode != domain.ModeAI || f.transcript(conv) != nil || f.notes.take() != nil {
					t.Fatalf("refused reply: %v; conversation %+v", err, c)
				}
				return
			}
			if err != nil || msg.OperatorName != tt.wantName || msg.Role != domain.RoleOperator || !msg.CreatedAt.Equal(start.Add(time.Hour)) {
				t.Fatalf("reply %+v, %v; want by %q at the clock's time", msg, err, tt.wantName)
			}
			if c.Mode != domain.ModeHuman || c.AssigneeID != tt.op.UserID || (tt.op.UserID != "" && c.AssigneeName != tt.wantName) {
				t.Fatalf("conversation %+v after the reply", c)
			}
			if got := f.notes.take(); !slices.Equal(got, []string{conv, AccountTopic(f.account.ID)}) {
				t.Fatalf("published %q", got)
			}
		})
	}
}

// A reply to a conversation another dashboard user already handles keeps
// that user's assignment; another account's conversation is not found.
func TestOperatorReplyKeepsTheAssignee(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	conv := f.init()
	if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{Name: "Ana", UserID: "usr_ana"}, "Hi, Ana here"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.OperatorReply(f.ctx, f.account.ID, conv, Operator{Name: "Ion", UserID: "usr_ion"}, "Ion too"); err != nil {
		t.Fatal(err)
	}
	if c := f.conv(conv); c.AssigneeID != "usr_ana" || c.AssigneeName != "Ana" {
		t.Fatalf("assignee %q %q, want Ana's", c.AssigneeID, c.AssigneeName)
	}
	if _, err := f.svc.OperatorReply(f.ctx, newAccount(f).ID, conv, Operator{}, "Hello"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account's conversation: %v", err)
	}
	f.wantTranscript(conv, "operator: Hi, Ana here", "operator: Ion too")
}
