package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
	"parley/internal/store/storetest"
)

func TestOutcomes(t *testing.T) {
	t.Parallel()
	serverURL(t)
	storetest.RunOutcomes(t, func(t *testing.T) (store.Store, storetest.Raw) {
		s := open(t, emptyStoreURL(t))
		return s, rawReader{s}
	})
}

// rawReader reads conversations and questions from the database.
type rawReader struct{ s *Store }

func (r rawReader) StoredConversation(t *testing.T, id string) (domain.Conversation, domain.Outcome) {
	t.Helper()
	var o domain.Outcome
	c, err := scanConversation(r.s.pool.QueryRow(t.Context(), `SELECT `+convCols+`, outcome FROM conversations WHERE id = $1`, id), &o)
	if err != nil {
		t.Fatalf("read conversation %s: %v", id, err)
	}
	return c, o
}

func (r rawReader) StoredQuestions(t *testing.T, conversationID string) []store.Question {
	t.Helper()
	rows, _ := r.s.pool.Query(t.Context(), `SELECT id, agent_id, conversation_id, seq, text, lang, reason, at, entry_id
		FROM questions WHERE conversation_id = $1 ORDER BY seq`, conversationID)
	qs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Question, error) {
		var q store.Question
		err := row.Scan(&q.ID, &q.AgentID, &q.ConversationID, &q.Seq, &q.Text, &q.Lang, &q.Reason, &q.At, &q.EntryID)
		q.At = ms(q.At)
		return q, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) == 0 {
		return nil
	}
	return qs
}
