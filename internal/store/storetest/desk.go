package storetest

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

func newCanned(t *testing.T, s store.Store, accountID, shortcut, lang string) store.CannedReply {
	t.Helper()
	c, err := s.CreateCannedReply(t.Context(), store.NewCannedReply{AccountID: accountID, Shortcut: shortcut, Language: lang, Text: "Text of " + shortcut})
	noErr(t, "CreateCannedReply", err)
	return c
}

// testCannedReplies: replies are the account's, listed by shortcut then
// language, read back as created; one per shortcut and language; another
// account's is not found for reading, updating and deleting.
func testCannedReplies(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newAccount(t, s, many)
	b := newAccount(t, s, many)
	ro := newCanned(t, s, a.ID, "refund", "ro")
	en := newCanned(t, s, a.ID, "refund", "en")
	hi := newCanned(t, s, a.ID, "hello", "any")
	got, err := s.CannedReply(ctx, a.ID, ro.ID)
	noErr(t, "CannedReply", err)
	if got.Shortcut != "refund" || got.Language != "ro" || got.Text != "Text of refund" || got.AccountID != a.ID {
		t.Fatalf("CannedReply = %+v", got)
	}
	sameTime(t, "CreatedAt", got.CreatedAt, ro.CreatedAt)
	_, err = s.CannedReply(ctx, b.ID, ro.ID)
	wantErr(t, "another account's CannedReply", err, domain.ErrNotFound)
	_, err = s.CreateCannedReply(ctx, store.NewCannedReply{AccountID: a.ID, Shortcut: "refund", Language: "en", Text: "again"})
	wantErr(t, "a second refund/en", err, domain.ErrConflict)
	// The same shortcut and language in another account is its own.
	newCanned(t, s, b.ID, "refund", "en")

	list, err := s.CannedReplies(ctx, a.ID)
	noErr(t, "CannedReplies", err)
	if len(list) != 3 || list[0].ID != hi.ID || list[1].ID != en.ID || list[2].ID != ro.ID {
		t.Fatalf("CannedReplies = %+v", list)
	}
	empty, err := s.CannedReplies(ctx, newAccount(t, s, many).ID)
	noErr(t, "CannedReplies of a new account", err)
	if empty == nil || len(empty) != 0 {
		t.Fatalf("CannedReplies of a new account = %#v, want empty", empty)
	}

	up, err := s.UpdateCannedReply(ctx, a.ID, ro.ID, store.CannedReplyPatch{Shortcut: "rambursare", Language: "ro", Text: "Banii înapoi, {{visitor.name}}"})
	noErr(t, "UpdateCannedReply", err)
	if up.Shortcut != "rambursare" || up.Text != "Banii înapoi, {{visitor.name}}" || up.ID != ro.ID {
		t.Fatalf("UpdateCannedReply = %+v", up)
	}
	if up.UpdatedAt.Before(ro.UpdatedAt) {
		t.Fatalf("UpdatedAt went back: %v < %v", up.UpdatedAt, ro.UpdatedAt)
	}
	again, err := s.CannedReply(ctx, a.ID, ro.ID)
	noErr(t, "CannedReply after update", err)
	if again.Shortcut != "rambursare" || again.Text != up.Text {
		t.Fatalf("CannedReply after update = %+v", again)
	}
	_, err = s.UpdateCannedReply(ctx, a.ID, up.ID, store.CannedReplyPatch{Shortcut: "refund", Language: "en", Text: "x"})
	wantErr(t, "an update onto refund/en", err, domain.ErrConflict)
	_, err = s.UpdateCannedReply(ctx, b.ID, ro.ID, store.CannedReplyPatch{Shortcut: "x", Language: "en", Text: "x"})
	wantErr(t, "another account's UpdateCannedReply", err, domain.ErrNotFound)
	_, err = s.UpdateCannedReply(ctx, a.ID, ro.ID, store.CannedReplyPatch{Shortcut: "x", Language: "en", Text: "a\x00b"})
	wantErr(t, "a NUL in the text", err, store.ErrBadText)

	wantErr(t, "another account's DeleteCannedReply", s.DeleteCannedReply(ctx, b.ID, ro.ID), domain.ErrNotFound)
	noErr(t, "DeleteCannedReply", s.DeleteCannedReply(ctx, a.ID, ro.ID))
	wantErr(t, "DeleteCannedReply again", s.DeleteCannedReply(ctx, a.ID, ro.ID), domain.ErrNotFound)
	_, err = s.CannedReply(ctx, a.ID, ro.ID)
	wantErr(t, "deleted CannedReply", err, domain.ErrNotFound)
}

// testCannedLimitConcurrent: creations racing at the bound leave exactly
// MaxCannedReplies replies, and the rest are ErrCannedLimit.
func testCannedLimitConcurrent(t *testing.T, s store.Store) {
	a := newAccount(t, s, many)
	for i := 0; i < store.MaxCannedReplies-3; i++ {
		newCanned(t, s, a.ID, "s"+strconv.Itoa(i), "any")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CreateCannedReply(t.Context(), store.NewCannedReply{AccountID: a.ID, Shortcut: "race" + strconv.Itoa(i), Language: "en", Text: "t"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok, limited := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, store.ErrCannedLimit):
			limited++
		default:
			t.Fatalf("CreateCannedReply: %v", err)
		}
	}
	if ok != 3 || limited != 5 {
		t.Fatalf("%d created and %d refused, want 3 and 5", ok, limited)
	}
	list, err := s.CannedReplies(t.Context(), a.ID)
	noErr(t, "CannedReplies", err)
	if len(list) != store.MaxCannedReplies {
		t.Fatalf("%d replies, want %d", len(list), store.MaxCannedReplies)
	}
}

// testNotes: notes are the conversation's, oldest first, only through its
// account; a conversation has at most MaxNotesPerConversation; they go
// with the conversation; they are not messages.
func testNotes(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	other := setup(t, s, many)
	c := f.conversation(t, s, base)
	c2 := f.conversation(t, s, base)
	add := func(conv domain.Conversation, text string) store.Note {
		t.Helper()
		n, err := s.AddNote(ctx, store.NewNote{AccountID: f.account.ID, ConversationID: conv.ID, AuthorID: "u_1", AuthorName: "Ana", Text: text})
		noErr(t, "AddNote", err)
		return n
	}
	first := add(c, "Refund approved by finance")
	second := add(c, "Call back on Monday — în română")
	add(c2, "other conversation")
	notes, err := s.Notes(ctx, f.account.ID, c.ID)
	noErr(t, "Notes", err)
	if len(notes) != 2 || notes[0].ID != first.ID || notes[1].ID != second.ID {
		t.Fatalf("Notes = %+v", notes)
	}
	if n := notes[1]; n.Text != "Call back on Monday — în română" || n.AuthorName != "Ana" || n.AuthorID != "u_1" || n.ConversationID != c.ID {
		t.Fatalf("note = %+v", n)
	}
	sameTime(t, "note CreatedAt", notes[0].CreatedAt, first.CreatedAt)
	none, err := s.Notes(ctx, other.account.ID, c.ID)
	noErr(t, "another account's Notes", err)
	if none == nil || len(none) != 0 {
		t.Fatalf("another account's Notes = %#v, want empty", none)
	}
	_, err = s.AddNote(ctx, store.NewNote{AccountID: other.account.ID, ConversationID: c.ID, AuthorID: "u_2", AuthorName: "Eve", Text: "x"})
	wantErr(t, "AddNote to another account's conversation", err, domain.ErrNotFound)
	_, err = s.AddNote(ctx, store.NewNote{AccountID: f.account.ID, ConversationID: "cv_missing", AuthorID: "u_1", AuthorName: "Ana", Text: "x"})
	wantErr(t, "AddNote to a missing conversation", err, domain.ErrNotFound)

	// Notes are not messages: the transcript does not have them.
	page, err := s.LatestMessages(ctx, c.ID, 0, 50)
	noErr(t, "LatestMessages", err)
	if len(page.Messages) != 0 {
		t.Fatalf("LatestMessages = %+v, want none", page.Messages)
	}

	for i := 2; i < store.MaxNotesPerConversation; i++ {
		add(c, "n"+strconv.Itoa(i))
	}
	_, err = s.AddNote(ctx, store.NewNote{AccountID: f.account.ID, ConversationID: c.ID, AuthorID: "u_1", AuthorName: "Ana", Text: "one too many"})
	wantErr(t, "AddNote past the bound", err, store.ErrNoteLimit)

	// Erasing the visitor takes the notes with the conversation.
	noErr(t, "DeleteVisitor", s.DeleteVisitor(ctx, f.account.ID, c2.VisitorID))
	gone, err := s.Notes(ctx, f.account.ID, c2.ID)
	noErr(t, "Notes of an erased conversation", err)
	if len(gone) != 0 {
		t.Fatalf("Notes of an erased conversation = %+v", gone)
	}
}
