package sqlite

import (
	"context"
	"database/sql"

	"parley/internal/domain"
)

// The conversation cache (Store.convs) keeps conversations as the last
// committed write left them, so that a chat reads its conversation from
// memory twice over: when the chat service checks it, and when the writer
// checks the mode again inside the write. A chat changes its conversation
// (last message, misses), so forgetting it on every write would leave
// nothing to hit: instead each write that changes a conversation records
// the new value (or that it must be forgotten) as it runs, and the
// committer applies those records in commit order once the batch is on
// disk, before any of its writers is told it is done. A write rolled back
// to its savepoint takes its records with it; a failed commit forgets
// every conversation the batch touched.

// maxConversations bounds the conversation cache: an entry holds the last
// message, up to 2,000 characters, so at most about 20 MB in all.
const maxConversations = 10_000

// convChange is one write's effect on the conversation cache.
type convChange struct {
	id   string
	conv domain.Conversation
	put  bool // conv is the new value; otherwise forget id
	all  bool // forget every conversation
}

// wrote records, inside a write, the conversation as the write leaves it.
// Only the committer's goroutine runs writes, so the record needs no lock.
func (s *Store) wrote(c domain.Conversation) {
	s.changes = append(s.changes, convChange{id: c.ID, conv: c, put: true})
}

// changed records, inside a write, that a conversation changed in a way
// the write does not track: it is forgotten.
func (s *Store) changed(id string) { s.changes = append(s.changes, convChange{id: id}) }

// changedAll records, inside a write, that many conversations changed.
func (s *Store) changedAll() { s.changes = append(s.changes, convChange{all: true}) }

// applyChanges runs on the committer once the batch's commit returned:
// committed, the records become the cache; not, everything they touched
// is forgotten.
func (s *Store) applyChanges(committed bool) {
	for _, ch := range s.changes {
		switch {
		case ch.all:
			s.convs.forgetAll()
		case ch.put && committed:
			s.convs.put(ch.id, ch.conv)
		default:
			s.convs.forget(ch.id)
		}
	}
	clear(s.changes) // drop the references the records hold
	s.changes = s.changes[:0]
}

// writeConversation reads a conversation inside a write: as an earlier
// write of the same batch left it, else from the cache of committed
// values, else from the database.
func (s *Store) writeConversation(ctx context.Context, tx *sql.Tx, id string) (domain.Conversation, error) {
	for i := len(s.changes) - 1; i >= 0; i-- {
		ch := s.changes[i]
		if ch.all || ch.id == id {
			if ch.put {
				return ch.conv, nil
			}
			return s.readConversation(ctx, tx, id)
		}
	}
	if c, ok := s.convs.peek(id); ok {
		return c, nil
	}
	return s.readConversation(ctx, tx, id)
}

func (s *Store) readConversation(ctx context.Context, tx *sql.Tx, id string) (domain.Conversation, error) {
	c, err := scanConversation(tx.StmtContext(ctx, s.ws.conversation).QueryRowContext(ctx, id))
	return c, notFound(err, domain.ErrNotFound)
}

// Conversation reads through the cache.
func (s *Store) Conversation(ctx context.Context, id string) (domain.Conversation, error) {
	if c, r, ok := s.convs.get(id); ok {
		return c, nil
	} else {
		c, err := scanConversation(s.queryRow(ctx, `SELECT `+convCols+` FROM conversations WHERE id = ?`, id))
		s.convs.done(id, r, c, err == nil)
		return c, notFound(err, domain.ErrNotFound)
	}
}
