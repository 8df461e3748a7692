package sqlite

import (
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
	"parley/internal/store/storetest"
)

func TestOutcomes(t *testing.T) {
	t.Parallel()
	storetest.RunOutcomes(t, func(t *testing.T) (store.Store, storetest.Raw) {
		s := openCopy(t)
		return s, rawReader{s}
	})
}

// rawReader reads conversations and questions from the file, past the
// conversation cache.
type rawReader struct{ s *Store }

func (r rawReader) StoredConversation(t *testing.T, id string) (domain.Conversation, domain.Outcome) {
	t.Helper()
	var o domain.Outcome
	c, err := scanConversation(r.s.r.QueryRowContext(t.Context(), `SELECT `+convCols+`, outcome FROM conversations WHERE id = ?`, id), &o)
	if err != nil {
		t.Fatalf("read conversation %s: %v", id, err)
	}
	return c, o
}

func (r rawReader) StoredQuestions(t *testing.T, conversationID string) []store.Question {
	t.Helper()
	rows, err := r.s.r.QueryContext(t.Context(), `SELECT id, agent_id, conversation_id, seq, text, lang, reason, at, entry_id
		FROM questions WHERE conversation_id = ? ORDER BY seq`, conversationID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var qs []store.Question
	for rows.Next() {
		var q store.Question
		var at int64
		if err := rows.Scan(&q.ID, &q.AgentID, &q.ConversationID, &q.Seq, &q.Text, &q.Lang, &q.Reason, &at, &q.EntryID); err != nil {
			t.Fatal(err)
		}
		q.At = fromMillis(at)
		qs = append(qs, q)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}
