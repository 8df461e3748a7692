package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"parley/internal/store"
	"parley/internal/store/storetest"
)

// checkSearchIndex indexes the messages above the mark, then fails t
// unless the FTS5 index holds exactly the trigrams of the messages there
// are: an index whose delete trigger missed a message still finds the
// conversations (the join with messages hides a stale entry), so only
// this check sees it.
func checkSearchIndex(t *testing.T, s *Store) {
	t.Helper()
	if err := s.indexPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`INSERT INTO messages_search (messages_search, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("the search index is out of step with the messages: %v", err)
	}
}

// indexFirst is a store whose search finds every message in the index:
// it indexes all of them before each list.
type indexFirst struct{ *Store }

func (s indexFirst) Conversations(ctx context.Context, accountID string, f store.ConversationFilter) (store.ConversationPage, error) {
	if err := s.indexPending(ctx); err != nil {
		return store.ConversationPage{}, err
	}
	return s.Store.Conversations(ctx, accountID, f)
}

// TestSearchEveryWay runs the search's contract with each way to find the
// matches on its own, whatever searchCandidates is: the index's
// candidates with every message indexed, the same with none indexed yet
// (the indexer stopped: the messages above the mark), and the scan. After
// each, the index holds exactly the messages there are (deleted ones
// gone).
func TestSearchEveryWay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		cap     int
		indexed bool
	}{{"Index", 1 << 30, true}, {"Unindexed", 1 << 30, false}, {"Scan", -1, true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storetest.RunSearch(t, func(t *testing.T) store.Store {
				s := openCopy(t)
				s.searchCap = tt.cap
				t.Cleanup(func() { checkSearchIndex(t, s) }) // before the store closes
				if !tt.indexed {
					s.stopIndexer()
					return s
				}
				return indexFirst{s}
			})
		})
	}
}

// TestSearchPlans: the candidates are the FTS5 index's matches and a
// range of the messages above its mark, looked up by key; the scan is the
// list's ordered walk (no sort) with the messages checked per
// conversation; the probe walks the list's index; a short search's
// candidates are the window, read from the list's index. None of them
// walks all of the list or all the messages. Without statistics, as
// Parley runs.
func TestSearchPlans(t *testing.T) {
	t.Parallel()
	s := openCopy(t)
	view := []string{"account_id = ?", "status = ?"}
	viewArgs := []any{"acc", "open"}
	sc := searchScope{where: view, args: viewArgs, view: len(view), viewArgs: len(viewArgs), order: inboxOrder, limit: 51}
	plan := func(q string) string {
		t.Helper()
		sq, err := s.searchQuery(t.Context(), q, sc)
		if err != nil {
			t.Fatal(err)
		}
		query := `SELECT ` + convCols + ` FROM ` + sq.from + ` WHERE ` + strings.Join(append(slices.Clone(view), sq.cond), " AND ") +
			` ORDER BY ` + inboxOrder + ` LIMIT 51`
		return strings.Join(queryPlan(t, s.r, query, slices.Concat(sq.fromArgs, viewArgs, sq.condArgs)...), "; ")
	}
	before := func(p, a, b string) bool {
		i, j := strings.Index(p, a), strings.Index(p, b)
		return i >= 0 && j >= 0 && i < j
	}

	s.searchCap = 1 << 30
	p := plan("shipping")
	if !before(p, "SCAN messages_search VIRTUAL TABLE INDEX 0:M", "SEARCH conversations USING INDEX sqlite_autoindex_conversations_1 (id=?)") ||
		!strings.Contains(p, "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)") ||
		!strings.Contains(p, "SEARCH messages USING INTEGER PRIMARY KEY (rowid>?)") ||
		strings.Contains(p, "SCAN messages ") || strings.Contains(p, "conversations_status") {
		t.Errorf("few matches: plan %q; want the FTS5 index's matches and the messages above its mark looked up by key", p)
	}

	s.searchCap = -1
	p = plan("shipping")
	if !strings.Contains(p, "INDEX conversations_status ") || strings.Contains(p, "TEMP B-TREE") ||
		!strings.Contains(p, "USING INDEX messages_conversation") || strings.Contains(p, "messages_search") {
		t.Errorf("many matches: plan %q; want the ordered scan of conversations_status without a sort", p)
	}
	window := `SELECT id FROM conversations WHERE ` + strings.Join(view, " AND ") + ` ORDER BY ` + inboxOrder + ` LIMIT ` + limitArg
	probe := strings.Join(queryPlan(t, s.r, `SELECT 1 FROM (`+window+`) AS w WHERE EXISTS (SELECT 1 FROM messages m
		WHERE m.conversation_id = w.id AND m.text_folded LIKE ?) LIMIT 51`, "acc", "open", searchProbe, "%x%"), "; ")
	if !strings.Contains(probe, "INDEX conversations_status ") || !strings.Contains(probe, "USING INDEX messages_conversation") ||
		strings.Contains(probe, "TEMP B-TREE") {
		t.Errorf("the probe: plan %q; want the list's index, no sort", probe)
	}

	p = plan("ab")
	if !before(p, "INDEX conversations_status ", "SEARCH conversations USING INDEX sqlite_autoindex_conversations_1 (id=?)") ||
		!strings.Contains(p, "USING INDEX messages_conversation") || strings.Contains(p, "messages_search") {
		t.Errorf("a short search: plan %q; want the window's conversations looked up by key", p)
	}
}

// TestUpgradeTo0021: the messages stored before migration 0021 are found
// at once, and indexed by the indexer.
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
	s.stopIndexer()
	s.searchCap = 1 << 30 // the index's way
	search := func(when string) {
		t.Helper()
		for q, want := range map[string]string{"PARCEL": "cv_a", "Посылка": "cv_b"} {
			page, err := s.Conversations(ctx, "acc_old", store.ConversationFilter{Search: q})
			if err != nil || len(page.Conversations) != 1 || page.Conversations[0].ID != want {
				t.Errorf("Search %q %s = %+v, %v; want %s", q, when, page.Conversations, err, want)
			}
		}
	}
	search("before the old messages are indexed")
	if err := s.indexPending(ctx); err != nil {
		t.Fatal(err)
	}
	var mark int
	if err := s.r.QueryRow(`SELECT indexed_seq FROM message_search_state`).Scan(&mark); err != nil || mark != 2 {
		t.Errorf("the index's mark after indexing = %d, %v; want 2", mark, err)
	}
	search("once they are")
	checkSearchIndex(t, s)
}
