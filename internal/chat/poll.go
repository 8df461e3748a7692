package chat

import (
	"context"
	"strconv"
	"strings"
	"time"

	"parley/internal/domain"
)

// MaxPollWait is the longest a long poll may wait (the wait parameter's
// upper bound).
const MaxPollWait = 30 * time.Second

// pollBatch bounds one poll answer; the cursor lets the client fetch more.
const pollBatch = 100

type PollInput struct {
	Key            string
	ConversationID string
	Origin         string        // the request's Origin header, "" when none (domain.AgentConfig.CheckOrigin)
	After          string        // a cursor from an earlier poll; "" for all operator messages
	Wait           time.Duration // 0 answers at once; up to MaxPollWait
}

type PollResult struct {
	Messages []domain.Message // operator messages after the cursor, oldest first
	Cursor   string           // pass as After next time
	Human    bool             // an operator handles the conversation
	// Rate: the widget may ask for a rating (AskRating): a person answered
	// and has handed the conversation back.
	Rate bool
	// Typing is the name of the operator typing now; "" when none
	// (typing.go). typingUntil is when that goes stale.
	Typing      string
	typingUntil time.Time
}

// Poll returns the operator's messages after the cursor. With a Wait it is
// a long poll: it answers as soon as an operator message arrives or the
// handling mode differs from the cursor's or changes from what it was when
// the poll began, or when Wait runs out.
func (s *Service) Poll(ctx context.Context, in PollInput) (PollResult, error) {
	if err := checkKey(in.Key); err != nil {
		return PollResult{}, err
	}
	if in.ConversationID == "" {
		return PollResult{}, domain.Invalid("conversation_id is required")
	}
	after, err := DecodeCursor(in.After)
	if err != nil {
		return PollResult{}, err
	}
	if in.Wait < 0 || in.Wait > MaxPollWait {
		return PollResult{}, domain.Invalid("wait must be between 0 and 30 seconds")
	}
	if in.Wait > 0 {
		return s.longPoll(ctx, in, after) // longpoll.go
	}
	return s.pollNow(ctx, in.Key, in.Origin, in.ConversationID, after.Seq) // pollnow.go
}

// Cursors are opaque to clients: a letter for the handling mode the
// answer reported ("h": a human handles the conversation, "c": the AI) and
// the message sequence number in base 36. The mode lets a long poll that
// follows an answer see a takeover or release that landed between the two:
// it compares the mode now with the cursor's, not only with the mode when
// it began, and answers at once when they differ. (Cursors made before the
// mode was in them all start with "c"; one given while a human handled the
// conversation costs one answer at once, which carries the right mode.)
func EncodeCursor(seq int64, human bool) string {
	prefix := "c"
	if human {
		prefix = "h"
	}
	return prefix + strconv.FormatInt(seq, 36)
}

// Cursor is a decoded poll cursor.
type Cursor struct {
	Seq   int64 // operator messages after this one
	Human bool  // the mode the answer that gave the cursor reported
	Set   bool  // false for "": no earlier answer, so no mode to compare
}

// DecodeCursor parses a cursor; "" is the start of the conversation.
func DecodeCursor(c string) (Cursor, error) {
	if c == "" {
		return Cursor{}, nil
	}
	bad := domain.Invalid("after is not a valid cursor")
	human := c[0] == 'h'
	if c[0] != 'c' && !human {
		return Cursor{}, bad
	}
	rest := c[1:]
	if rest == "" || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
		return Cursor{}, bad
	}
	n, err := strconv.ParseInt(rest, 36, 64)
	if err != nil {
		return Cursor{}, bad
	}
	return Cursor{Seq: n, Human: human, Set: true}, nil
}
