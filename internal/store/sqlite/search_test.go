package sqlite

import (
	"context"
	"math"
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

// TestSearchEveryWay runs the search's contract with the matches found in
// the index (every message indexed before each list), among the
// messages above its mark (none indexed: the indexer stopped), and, as
// the store runs with the contract's few conversations, through the
// messages of a small list. After each, the index holds exactly the
// messages there are (deleted ones gone).
func TestSearchEveryWay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name           string
		indexed, small bool
	}{{"Index", true, false}, {"Unindexed", false, false}, {"SmallList", true, true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storetest.RunSearch(t, func(t *testing.T) store.Store {
				s := openCopy(t)
				t.Cleanup(func() { checkSearchIndex(t, s) }) // before the store closes
				if !tt.small {
					s.smallList = 0
				}
				if !tt.indexed {
					s.stopIndexer()
					return s
				}
				return indexFirst{s}
			})
		})
	}
}

// TestSearchPlans: the matches are read in the page's order without a
// sort, the index's by its rowid and those above its mark by a range of
// seq, each looked up by key, its conversation by key and, on a later
// page, its newer matches down the conversation's messages; a short
// search reads the window from the list's index and its conversations'
// messages down theirs. None of them walks all of the list or all the
// messages. Without statistics, as Parley runs.
func TestSearchPlans(t *testing.T) {
	t.Parallel()
	s := openCopy(t)
	where := []string{"account_id = ?", "status = ?"}
	args := []any{"acc", "open"}
	// walks reports a sort, or a walk of a whole table other than the
	// one-row mark.
	walks := func(p string) bool {
		for step := range strings.SplitSeq(p, "; ") {
			if strings.Contains(step, "TEMP B-TREE") || step == "SCAN m" || step == "SCAN n" ||
				strings.HasPrefix(step, "SCAN conversations") || strings.HasPrefix(step, "SCAN messages ") {
				return true
			}
		}
		return false
	}
	plan := func(q matchQuery) string {
		t.Helper()
		return strings.Join(queryPlan(t, s.r, q.query, q.args...), "; ")
	}
	for _, below := range []int64{math.MaxInt64, 42} {
		mq := matchQueries("shipping", where, args, below)
		p := plan(mq[0])
		if !strings.Contains(p, "SEARCH m USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") ||
			!strings.Contains(p, "USING INDEX sqlite_autoindex_conversations_1 (id=?)") || walks(p) {
			t.Errorf("the messages above the mark, below %d: plan %q; want a range of seq, newest first, conversations by key", below, p)
		}
		p = plan(mq[1])
		if !strings.Contains(p, "SCAN messages_search VIRTUAL TABLE INDEX") ||
			!strings.Contains(p, "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)") ||
			!strings.Contains(p, "USING INDEX sqlite_autoindex_conversations_1 (id=?)") || walks(p) {
			t.Errorf("the index's matches, below %d: plan %q; want the index in its order, messages and conversations by key", below, p)
		}
		if below != math.MaxInt64 && !strings.Contains(p, "SEARCH n USING INDEX messages_conversation (conversation_id=? AND seq>?)") {
			t.Errorf("a later page: plan %q; want the newer matches down the conversation's messages", p)
		}
	}
	window, windowArgs := shortWindow(store.ConversationFilter{Status: "open", Order: store.ByActivity}, where, args)
	p := strings.Join(queryPlan(t, s.r, `SELECT max(m.seq) AS hit, m.conversation_id FROM messages m
		WHERE m.conversation_id IN (`+window+`) AND m.text_folded LIKE ? GROUP BY m.conversation_id`,
		append(windowArgs, "%ab%")...), "; ")
	if !strings.Contains(p, "INDEX conversations_status ") || !strings.Contains(p, "USING INDEX messages_conversation") ||
		strings.Contains(p, "messages_search") || strings.Contains(p, "SCAN m ") {
		t.Errorf("a short search: plan %q; want the window from the list's index, its messages by conversation", p)
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
