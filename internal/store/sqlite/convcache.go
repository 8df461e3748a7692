package sqlite

import (
	"context"
	"database/sql"

	"parley/internal/domain"
)

// The conversation cache (caches.convs, see cache.go) keeps conversations as the last
// committed write left them, so that a chat reads its conversation from
// memory twice over: when the chat service checks it, and when the writer
// checks the mode again inside the write. A chat changes its conversation
// (last message, misses), so forgetting it on every write would leave
// nothing to hit: instead each write that changes a conversation records
// the new value (or that it must be forgotten) as it runs (s.wrote,
// s.invalidate), and the committer applies those records in commit order
// (caches.apply).

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

// writeConversation reads a conversation and its number of messages
// inside a write: as an earlier write of the same batch left them, else
// from the cache of committed values, else from the database.
func (s *Store) writeConversation(ctx context.Context, tx *sql.Tx, id string) (domain.Conversation, int, error) {
	if ev, ok := s.cache.latest(id); ok {
		if ev.what&putConversation != 0 {
			return ev.conv, ev.messages, nil
		}
		return s.readConversation(ctx, tx, id)
	}
	if c, ok := s.cache.convs.peek(id); ok {
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
	if c, r, ok := s.cache.convs.get(id); ok {
		return c.conv, nil
	} else {
		c, err := scanConversation(s.queryRow(ctx, `SELECT `+convCols+` FROM conversations WHERE id = ?`, id))
		s.cache.convs.done(id, r, cachedConv{conv: c, messages: notCounted}, err == nil)
		return c, notFound(err, domain.ErrNotFound)
	}
}
