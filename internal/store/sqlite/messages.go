package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"parley/internal/domain"
	"parley/internal/quota"
	"parley/internal/store"
)

const messageCols = `seq, conversation_id, role, text, operator_name, created_at, prompt_tokens, completion_tokens, helpful`

// AddMessage checks the mode and the cap, inserts and updates the
// conversation in one writer transaction, so an AI reply cannot slip in
// after an operator's takeover has committed, and no two chats can both
// take a conversation's last place.
//
// The write reads the message from row and leaves its results in out, not
// in variables of their own: each variable a queued write sets is one more
// allocation per chat (and a NewMessage is too large to be copied into it).
func (s *Store) AddMessage(ctx context.Context, n store.NewMessage) (domain.Message, domain.Conversation, error) {
	if err := store.CheckText(n.ConversationID, n.Text, n.OperatorName, n.AssigneeID, n.AssigneeName, n.Question, n.Lang); err != nil {
		return domain.Message{}, domain.Conversation{}, err
	}
	row := newRow(n) // before the writer's turn: it does nothing else meanwhile
	var out struct {
		m    domain.Message
		c    domain.Conversation
		full bool
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx, n := inWrite(ctx), &row.n
		c, count, err := s.writeConversation(ctx, tx, n.ConversationID)
		if err != nil {
			return err
		}
		if out.full, err = s.admit(n, c, count); out.full || err != nil {
			return err
		}
		res, err := s.execHot(hotInsertMessage, row.args()...)
		if err != nil {
			return err
		}
		out.m = row.message()
		if out.m.Seq, err = res.LastInsertId(); err != nil {
			return err
		}
		out.c = n.Apply(c, out.m.CreatedAt)
		if err := addTokens(ctx, tx, c.AccountID, row); err != nil {
			return err
		}
		if err := s.recordUnanswered(ctx, tx, c, n, out.m.Seq, row); err != nil {
			return err
		}
		return s.saveConversation(c, out.c, count+1, changesPollState(n))
	})
	if err == nil && out.full {
		err = domain.ErrConversationFull
	}
	if err != nil {
		return domain.Message{}, domain.Conversation{}, fmt.Errorf("add message: %w", err)
	}
	return out.m, out.c, nil
}

// AddExchange is AddMessage for two messages in one write: the
// conversation is read and updated once, and both messages are inserted by
// one statement when the reply is admitted (the rowid it leaves is the
// reply's: the last row it inserted).
func (s *Store) AddExchange(ctx context.Context, msg, reply store.NewMessage) (domain.Conversation, int64, error) {
	if err := store.CheckText(msg.ConversationID, msg.Text, msg.OperatorName, reply.Text, reply.OperatorName, reply.Question, reply.Lang); err != nil {
		return domain.Conversation{}, 0, err
	}
	if reply.Question == "" {
		reply.Question = msg.Text // the reply answers this message
	}
	first, second := newRow(msg), newRow(reply)
	var out struct {
		c        domain.Conversation
		replySeq int64
		full     bool
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx, msg, reply := inWrite(ctx), &first.n, &second.n
		out.replySeq = 0 // a write retried after a rollback starts afresh
		c, count, err := s.writeConversation(ctx, tx, msg.ConversationID)
		if err != nil {
			return err
		}
		if out.full, err = s.admit(msg, c, count); out.full || err != nil {
			return err
		}
		next, added := msg.Apply(c, first.createdAt), 1
		stored := reply.Admits(next) && reply.Fits(count+1)
		if stored {
			var res sql.Result
			if res, err = s.execHot(hotInsertTwo, append(first.args(), second.args()...)...); err == nil {
				out.replySeq, err = res.LastInsertId()
			}
			next, added = reply.Apply(next, second.createdAt), 2
			if err == nil {
				err = addTokens(ctx, tx, c.AccountID, second)
			}
			if err == nil {
				err = s.recordUnanswered(ctx, tx, c, reply, out.replySeq, second)
			}
		} else {
			_, err = s.execHot(hotInsertMessage, first.args()...)
		}
		if err != nil {
			return err
		}
		out.c = next
		return s.saveConversation(c, next, count+added, changesPollState(msg) || (stored && changesPollState(reply)))
	})
	if err == nil && out.full {
		err = domain.ErrConversationFull
	}
	if err != nil {
		return domain.Conversation{}, 0, fmt.Errorf("add exchange: %w", err)
	}
	return out.c, out.replySeq, nil
}

// admit applies n's rules (store.NewMessage.Check) to the conversation as
// the write read it. A refusal is err. A full conversation is full, with a
// nil err: the write ends there, storing nothing, but succeeds (the caller
// says it was refused), so that the count it may just have made stays in
// the cache; the refused chats that a full conversation keeps getting then
// cost no count each.
func (s *Store) admit(n *store.NewMessage, c domain.Conversation, count int) (full bool, err error) {
	switch err := n.Check(c, count); err {
	case nil:
		return false, nil
	case domain.ErrConversationFull:
		s.wrote(c, count, false)
		return true, nil
	default:
		return false, err
	}
}

// addTokens adds the LLM tokens of a stored message to its account's usage
// of the message's month. Only LLM replies have any, so the chats of the
// built-in knowledge-base agent write nothing more; a reply from an LLM
// takes seconds anyway, against which parsing this statement is nothing.
func addTokens(ctx context.Context, tx *sql.Tx, accountID string, r messageRow) error {
	t := r.n.Tokens
	if t.IsZero() {
		return nil
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO usage (account_id, period, conversations, overage_conversations, overage_cents, prompt_tokens, completion_tokens)
		VALUES (?, ?, 0, 0, 0, ?, ?)
		ON CONFLICT (account_id, period) DO UPDATE SET
			prompt_tokens = prompt_tokens + excluded.prompt_tokens,
			completion_tokens = completion_tokens + excluded.completion_tokens`,
		accountID, quota.Period(r.createdAt), t.Prompt, t.Completion)
	return err
}

// ConversationTokens sums down messages_conversation.
func (s *Store) ConversationTokens(ctx context.Context, conversationID string) (domain.Tokens, error) {
	var t domain.Tokens
	err := s.queryRow(ctx, `
		SELECT coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0)
		FROM messages WHERE conversation_id = ?`, conversationID).Scan(&t.Prompt, &t.Completion)
	if err != nil {
		return domain.Tokens{}, fmt.Errorf("conversation tokens: %w", err)
	}
	return t, nil
}

// changesPollState reports whether storing n can change its conversation's
// store.PollState: an operator message, or one that sets the mode.
func changesPollState(n *store.NewMessage) bool {
	return n.Role == domain.RoleOperator || n.SetMode != ""
}

// messageRow is a message as inserted: its time settled (now, if n has
// none) and its text folded for search, worked out before the write.
type messageRow struct {
	n         store.NewMessage
	createdAt time.Time
	folded    string
}

func newRow(n store.NewMessage) messageRow {
	return messageRow{n: n, createdAt: store.OrNow(n.CreatedAt), folded: fold(n.Text)}
}

// args are the insert statement's parameters, in its column order.
func (r messageRow) args() []any {
	// The role as a plain string: a named string type would take the
	// conversion by reflection in database/sql.
	return []any{r.n.ConversationID, string(r.n.Role), r.n.Text, r.folded, r.n.OperatorName, millis(r.createdAt), r.n.Tokens.Prompt, r.n.Tokens.Completion}
}

// message is the row as stored, but for its seq.
func (r messageRow) message() domain.Message {
	m := r.n.Message()
	m.CreatedAt = r.createdAt
	return m
}

// saveConversation writes what a message changed of a conversation (from
// before to c), and records the new value, with the number of messages it
// now holds, for the caches (poll: the message changed its poll state).
//
// The last message is not stored on the conversation (see convCols); its
// latest activity is (the desk's inbox is ordered by it, migration 0020),
// so every message that moves it writes one UPDATE, in this write, under
// the message's own savepoint and commit. It sets only what can have
// changed: SQLite updates every index on a column an UPDATE sets, whether
// or not its value changes, and waiting is indexed (the inbox filters on
// it). Most messages change nothing but the activity (hotTouch), which
// touches only the indexes keyed on it. The outcome and the facts it
// reads (migration 0023) change a few times in a conversation's life —
// its first question and answer, the first miss and the answer after
// misses, the handoff, an operator's first message — and only those
// messages write them, the outcome being indexed for the reports: alone
// (hotSetOutcome), with the misses when the outcome follows the count
// (hotSetMissesOutcome; a second miss in a row is hotSetMisses, as
// before), or, when facts and misses change at once or with the mode,
// wait or assignee, with everything (hotAfterMessage).
func (s *Store) saveConversation(before, c domain.Conversation, messages int, poll bool) error {
	var err error
	activity := millis(c.LastActivityAt)
	facts := factsChanged(before, c)
	switch {
	case c.Mode != before.Mode || c.Waiting != before.Waiting || !c.WaitingSince.Equal(before.WaitingSince) ||
		c.AssigneeID != before.AssigneeID || c.AssigneeName != before.AssigneeName ||
		(facts && c.Misses != before.Misses):
		var since any // NULL while it does not wait
		if c.Waiting {
			since = millis(c.WaitingSince)
		}
		_, err = s.execHot(hotAfterMessage, string(c.Mode), c.Waiting, since, c.Misses, c.AssigneeID, c.AssigneeName, activity,
			c.Asked, c.Answered, orNull(c.HandedAt), orNull(c.FirstOperatorAt), string(c.Outcome()), c.ID)
	case facts: // the misses as they were
		_, err = s.execHot(hotSetOutcome,
			c.Asked, c.Answered, orNull(c.HandedAt), orNull(c.FirstOperatorAt), string(c.Outcome()), activity, c.ID)
	case c.Outcome() != before.Outcome(): // with the misses alone
		_, err = s.execHot(hotSetMissesOutcome, c.Misses, string(c.Outcome()), activity, c.ID)
	case c.Misses != before.Misses:
		_, err = s.execHot(hotSetMisses, c.Misses, activity, c.ID)
	case !c.LastActivityAt.Equal(before.LastActivityAt):
		_, err = s.execHot(hotTouch, activity, c.ID)
	}
	if err == nil {
		s.wrote(c, messages, poll)
	}
	return err
}

// factsChanged reports whether a fact the outcome reads, as a message
// changes them (store.NewMessage.Apply), differs between before and c.
// The misses, which it also reads, are told apart (see saveConversation).
func factsChanged(before, c domain.Conversation) bool {
	return c.Asked != before.Asked || c.Answered != before.Answered ||
		!c.HandedAt.Equal(before.HandedAt) || !c.FirstOperatorAt.Equal(before.FirstOperatorAt)
}

// orNull is a time that may be zero as a hot write takes it: NULL when
// zero, else its milliseconds (a sql.NullInt64 is a driver.Valuer, which
// execHot refuses).
func orNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return millis(t)
}

// LatestMessages reads the page newest first, one row more than asked to
// tell whether older ones exist, down messages_conversation.
func (s *Store) LatestMessages(ctx context.Context, conversationID string, before int64, limit int) (store.MessagePage, error) {
	limit = store.MessagePageSize(limit)
	if before != 0 {
		var one int
		err := s.queryRow(ctx, `SELECT 1 FROM messages WHERE seq = ? AND conversation_id = ?`, before, conversationID).Scan(&one)
		if err != nil {
			return store.MessagePage{}, notFound(err, store.ErrBadMessageCursor)
		}
	} else {
		before = math.MaxInt64
	}
	msgs, err := s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id = ? AND seq < ?
		ORDER BY seq DESC LIMIT `+limitArg, conversationID, before, limit+1)
	if err != nil {
		return store.MessagePage{}, err
	}
	return store.NewestFirst(msgs, limit), nil
}

// MessagesAfter returns nothing for a limit below 1 rather than everything.
func (s *Store) MessagesAfter(ctx context.Context, conversationID string, role domain.Role, after int64, limit int) ([]domain.Message, error) {
	if limit < 1 {
		return []domain.Message{}, nil
	}
	return s.messages(ctx, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id = ? AND role = ? AND seq > ?
		ORDER BY seq LIMIT `+limitArg, conversationID, role, after, limit)
}

func (s *Store) messages(ctx context.Context, query string, args ...any) ([]domain.Message, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	msgs := []domain.Message{}
	for rows.Next() {
		var m domain.Message
		var created int64
		var helpful sql.NullBool
		if err := rows.Scan(&m.Seq, &m.ConversationID, &m.Role, &m.Text, &m.OperatorName, &created, &m.Tokens.Prompt, &m.Tokens.Completion, &helpful); err != nil {
			return nil, err
		}
		m.CreatedAt = fromMillis(created)
		if helpful.Valid {
			m.Helpful = &helpful.Bool
		}
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}
