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
	After          string        // a cursor from an earlier poll; "" for all operator messages
	Wait           time.Duration // 0 answers at once; up to MaxPollWait
}

type PollResult struct {
	Messages []domain.Message // operator messages after the cursor, oldest first
	Cursor   string           // pass as After next time
	Human    bool             // an operator handles the conversation
}

// Poll returns the operator's messages after the cursor. With a Wait it is
// a long poll: it answers as soon as an operator message arrives or the
// handling mode changes from what it was when the poll began, or when Wait
// runs out.
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
	return s.pollNow(ctx, in.Key, in.ConversationID, after) // pollnow.go
}

// Cursors are opaque to clients: "c" and the message sequence number in base
// 36. The prefix lets the format change later without breaking old cursors.
func EncodeCursor(seq int64) string { return "c" + strconv.FormatInt(seq, 36) }

// DecodeCursor parses a cursor; "" is the start of the conversation.
func DecodeCursor(c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	rest, ok := strings.CutPrefix(c, "c")
	if !ok || rest == "" || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
		return 0, domain.Invalid("after is not a valid cursor")
	}
	n, err := strconv.ParseInt(rest, 36, 64)
	if err != nil {
		return 0, domain.Invalid("after is not a valid cursor")
	}
	return n, nil
}
