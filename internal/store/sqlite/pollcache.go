package sqlite

import (
	"context"

	"parley/internal/domain"
	"parley/internal/store"
)

// The poll state cache (caches.polls, see cache.go) keeps each polled
// conversation's store.PollState, so that a widget poll with nothing new —
// most polls — reads nothing from the database. The writes that can change
// it — an operator message or a mode set by AddMessage or AddExchange,
// SetMode, TakeOver, SetStatus (resolve, reopen), and DeleteUser, which hands conversations back to the
// AI — record forgetPollState (or forgetConversations), applied once
// committed (see exactCache).

// maxPollStates bounds the poll state cache (about 150 bytes an entry).
const maxPollStates = 100_000

// PollState reads through the cache.
func (s *Store) PollState(ctx context.Context, id string) (store.PollState, error) {
	st, r, ok := s.cache.polls.get(id)
	if ok {
		return st, nil
	}
	err := s.queryRow(ctx, `
		SELECT agent_id, mode,
			COALESCE((SELECT max(seq) FROM messages WHERE conversation_id = c.id AND role = 'operator'), 0),
			status
		FROM conversations c WHERE id = ?`, id).Scan(&st.AgentID, &st.Mode, &st.LastOperatorSeq, &st.Status)
	s.cache.polls.done(id, r, st, err == nil)
	return st, notFound(err, domain.ErrNotFound)
}
