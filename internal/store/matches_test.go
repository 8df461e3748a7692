package store

import (
	"slices"
	"testing"

	"parley/internal/domain"
)

// Matches takes each conversation once, at its first (newest) match, up
// to the page and one more; the page leaves out a conversation deleted
// after the matches were read, and its cursor is the last match shown.
func TestMatchesPage(t *testing.T) {
	t.Parallel()
	m := NewMatches(3)
	for _, x := range []Match{{90, "a"}, {80, "b"}, {70, "a"}, {60, "c"}, {50, "d"}} {
		if m.Add(x.Seq, x.ConversationID) {
			break
		}
	}
	if got := m.IDs(); !slices.Equal(got, []string{"a", "b", "c"}) || !m.Full() {
		t.Fatalf("IDs = %v (full %v), want a, b, c and full", got, m.Full())
	}
	page := m.Page([]domain.Conversation{{ID: "c"}, {ID: "a"}}, 2) // b deleted meanwhile
	if len(page.Conversations) != 1 || page.Conversations[0].ID != "a" {
		t.Errorf("page = %+v, want a only", page.Conversations)
	}
	c, err := DecodeCursor(page.Next)
	if err != nil || c.Order != ByMatch || c.Seq != 80 || c.ID != "b" {
		t.Errorf("next = %+v, %v; want after b's match 80", c, err)
	}
	if last := m.Page([]domain.Conversation{{ID: "a"}, {ID: "b"}, {ID: "c"}}, 3); last.Next != "" || len(last.Conversations) != 3 {
		t.Errorf("the whole list as a page: %+v, want three and no cursor", last)
	}
}
