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

// The cache also holds each conversation's number of messages, which the
// cap per conversation (store.NewMessage.Fits) is checked against inside
// the write: the count goes with the conversation as every write leaves
// it, so a chat checks the cap without reading anything. It is not stored
// on the conversation's row, which would add an UPDATE to every chat
// (docs/benchmarks.md, item 17). A conversation read by a reader (not by a
// write) is cached uncounted, and the first write to it counts its
// messages once, down the messages_conversation index.

// cachedConv is a cached conversation and its number of messages;
// messages is notCounted when a reader cached it.
type cachedConv struct {
	conv     domain.Conversation
	messages int
}

const notCounted = -1

// maxConversations bounds the conversation cache: an entry holds the last
// message, up to 2,000 characters, so at most about 20 MB in all.
const maxConversations = 10_000

// convChange is one write's effect on the conversation cache.
type convChange struct {
	id       string
	conv     domain.Conversation
	messages int  // conv's number of messages
	put      bool // conv is the new value; otherwise forget id
	all      bool // forget every conversation
}

// wrote records, inside a write, the conversation as the write leaves it
// and how many messages it then holds. Only the committer's goroutine runs
// writes, so the record needs no lock.
func (s *Store) wrote(c domain.Conversation, messages int) {
	s.changes = append(s.changes, convChange{id: c.ID, conv: c, messages: messages, put: true})
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
			s.convs.put(ch.id, cachedConv{conv: ch.conv, messages: ch.messages})
		default:
			s.convs.forget(ch.id)
		}
	}
	clear(s.changes) // drop the references the records hold
	s.changes = s.changes[:0]
}

// writeConversation reads a conversation and its number of messages
// inside a write: as an earlier write of the same batch left them, else
// from the cache of committed values, else from the database.
func (s *Store) writeConversation(ctx context.Context, tx *sql.Tx, id string) (domain.Conversation, int, error) {
	for i := len(s.changes) - 1; i >= 0; i-- {
		ch := s.changes[i]
		if ch.all || ch.id == id {
			if ch.put {
				return ch.conv, ch.messages, nil
			}
			return s.readConversation(ctx, tx, id)
		}
	}
	if c, ok := s.convs.peek(id); ok {
		if c.messages != notCounted {
			return c.conv, c.messages, nil
		}
		var n int
		err := tx.StmtContext(ctx, s.ws.countMessages).QueryRowContext(ctx, id).Scan(&n)
		return c.conv, n, err
	}
	return s.readConversation(ctx, tx, id)
}

func (s *Store) readConversation(ctx context.Context, tx *sql.Tx, id string) (domain.Conversation, int, error) {
	var n int
	c, err := scanConversation(tx.StmtContext(ctx, s.ws.conversation).QueryRowContext(ctx, id), &n)
	return c, n, notFound(err, domain.ErrNotFound)
}

// Conversation reads through the cache.
func (s *Store) Conversation(ctx context.Context, id string) (domain.Conversation, error) {
	if c, r, ok := s.convs.get(id); ok {
		return c.conv, nil
	} else {
		c, err := scanConversation(s.queryRow(ctx, `SELECT `+convCols+` FROM conversations WHERE id = ?`, id))
		s.convs.done(id, r, cachedConv{conv: c, messages: notCounted}, err == nil)
		return c, notFound(err, domain.ErrNotFound)
	}
}
