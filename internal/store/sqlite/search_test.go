package sqlite

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"parley/internal/store"
	"parley/internal/store/storetest"
)

// checkSearchIndex fails t unless the FTS5 index holds exactly the
// trigrams of the messages there are: an external-content index whose
// triggers missed a write or a delete still finds the conversations (the
// join with messages hides a stale entry), so only this check sees it.
func checkSearchIndex(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.w.Exec(`INSERT INTO messages_search (messages_search, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("the search index is out of step with the messages: %v", err)
	}
}

// TestSearchBothWays runs the search's contract with the index for any
// number of matches and with the scan for any number, so each way is
// checked on its own whatever searchCandidates is; after each the index
// still matches the messages (deleted ones included).
func TestSearchBothWays(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		cap  int
	}{{"Index", 1 << 30}, {"Scan", -1}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storetest.RunSearch(t, func(t *testing.T) store.Store {
				s := openCopy(t)
				s.searchCap = tt.cap
				t.Cleanup(func() { checkSearchIndex(t, s) }) // before the store closes
				return s
			})
		})
	}
}

// TestSearchPlans: a search of three characters or more with few matches
// reads the FTS5 index and looks up its conversations by key; with many,
// it is the list's ordered scan (no sort) with the messages checked per
// conversation; a short one scans within the window.
func TestSearchPlans(t *testing.T) {
	t.Parallel()
	s := openCopy(t)
	view := []string{"account_id = ?", "status = ?"}
	viewArgs := []any{"acc", "open"}
	plan := func(q string) string {
		t.Helper()
		sq, err := s.searchQuery(t.Context(), q, searchScope{where: view, args: viewArgs, view: len(view), viewArgs: len(viewArgs),
			order: inboxOrder, limit: 51})
		if err != nil {
			t.Fatal(err)
		}
		query := `SELECT id FROM ` + sq.from + ` WHERE ` + strings.Join(append(slices.Clone(view), sq.cond), " AND ") +
			` ORDER BY ` + inboxOrder + ` LIMIT 51`
		args := slices.Concat(sq.fromArgs, viewArgs, sq.condArgs)
		return strings.Join(queryPlan(t, s.r, query, args...), "; ")
	}

	s.searchCap = 1 << 30
	p := plan("shipping")
	if !strings.Contains(p, "SCAN messages_search VIRTUAL TABLE INDEX 0:M") ||
		!strings.Contains(p, "SEARCH m USING INTEGER PRIMARY KEY") ||
		!strings.Contains(p, "SEARCH conversations USING INDEX sqlite_autoindex_conversations_1 (id=?)") ||
		strings.Index(p, "messages_search") > strings.Index(p, "SEARCH conversations") {
		t.Errorf("few matches: plan %q; want the FTS5 index's matches looked up by key", p)
	}

	s.searchCap = -1
	p = plan("shipping")
	if !strings.Contains(p, "INDEX conversations_status ") || strings.Contains(p, "TEMP B-TREE") ||
		!strings.Contains(p, "USING INDEX messages_conversation") || strings.Contains(p, "messages_search") {
		t.Errorf("many matches: plan %q; want the ordered scan of conversations_status without a sort", p)
	}

	p = plan("ab")
	if !strings.Contains(p, "INDEX conversations_status ") || !strings.Contains(p, "USING INDEX messages_conversation") ||
		strings.Contains(p, "messages_search") {
		t.Errorf("a short search: plan %q; want the scan of the window", p)
	}
}

// TestUpgradeTo0021: migration 0021 indexes the messages stored before it.
func TestUpgradeTo0021(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := migratedTo(t, path, 19)
	execAll(t, old, slices.Concat([]string{
		`INSERT INTO accounts (id, email, name, password_hash, monthly_conversations, overage_price_cents, spend_cap_cents, created_at) VALUES ('acc_old', 'old@example.com', 'Old Co', '$2a$old', 100, 0, 0, 1)`,
		`INSERT INTO agents (id, account_id, chatbot_name, config, created_at, updated_at) VALUES ('ag_old', 'acc_old', 'Bot', '{}', 1, 1)`,
	}, []string{
		`INSERT INTO conversations (id, agent_id, account_id, visitor_id, page_url, mode, created_at)
			VALUES ('cv_a', 'ag_old', 'acc_old', 'v_1', '', 'ai', 1), ('cv_b', 'ag_old', 'acc_old', 'v_2', '', 'ai', 2)`,
		`INSERT INTO messages (conversation_id, role, text, text_folded, operator_name, created_at) VALUES
			('cv_a', 'visitor', 'Where is my parcel?', 'where is my parcel?', '', 10),
			('cv_b', 'visitor', 'ПРИВЕТ, посылка', 'привет, посылка', '', 11)`,
	})...)
	old.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the upgrade: %v", err)
	}
	defer s.Close()
	s.searchCap = 1 << 30 // the index's way
	for q, want := range map[string]string{"PARCEL": "cv_a", "Посылка": "cv_b"} {
		page, err := s.Conversations(ctx, "acc_old", store.ConversationFilter{Search: q})
		if err != nil || len(page.Conversations) != 1 || page.Conversations[0].ID != want {
			t.Errorf("Search %q after the upgrade = %+v, %v; want %s", q, page.Conversations, err, want)
		}
	}
	checkSearchIndex(t, s)
}
