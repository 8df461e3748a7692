package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// The owner's reports (issue 20): see store.Insights. Every read groups
// or filters by columns the writes keep on each conversation (outcome,
// thumbs, handed_at, first_operator_at), so a year of a busy account is
// one pass over its conversations' index range, never over transcripts
// (docs/store.md "Outcomes and questions", docs/benchmarks.md).

// inPeriod is the conversations a report reads: the account's, created in
// [from, to), of one agent when agentID is not "". With an agent the
// planner walks that agent's index (conversations_agent), else the
// account's; the agent's own conversations are few next to the account's.
func inPeriod(alias, accountID string, from, to time.Time, agentID string) (string, []any) {
	cond := alias + `account_id = ? AND ` + alias + `created_at >= ? AND ` + alias + `created_at < ?`
	args := []any{accountID, millis(from), millis(to)}
	if agentID != "" {
		cond += ` AND ` + alias + `agent_id = ?`
		args = append(args, agentID)
	}
	return cond, args
}

func (s *Store) Report(ctx context.Context, accountID string, f store.ReportFilter) (store.Report, error) {
	r := store.Report{Days: store.ReportDays(f.From, f.To), FirstResponses: []time.Duration{}}
	if len(r.Days) == 0 {
		return r, nil
	}
	cond, args := inPeriod("", accountID, f.From, f.To, f.AgentID)
	first := millis(r.Days[0].Day)
	day, hour := store.UTCDay.Milliseconds(), time.Hour.Milliseconds()

	// Offsets from the first day are never negative (created_at >= from
	// >= first), so integer division floors: the day's index, and the
	// hour of the UTC day.
	rows, err := s.query(ctx, `SELECT (created_at - ?) / ?, outcome, count(*), sum(helpful), sum(not_helpful)
		FROM conversations WHERE `+cond+` GROUP BY 1, 2`, append([]any{first, day}, args...)...)
	if err != nil {
		return store.Report{}, fmt.Errorf("report: %w", err)
	}
	err = eachRow(rows, func(sc scanner) error {
		var i int64
		var o domain.Outcome
		var n, up, down int
		if err := sc.Scan(&i, &o, &n, &up, &down); err != nil {
			return err
		}
		store.CountOutcome(r.Days, i, o, n, up, down)
		return nil
	})
	if err != nil {
		return store.Report{}, fmt.Errorf("report: %w", err)
	}

	rows, err = s.query(ctx, `SELECT (created_at - ?) % ? / ?, count(*) FROM conversations WHERE `+cond+` GROUP BY 1`,
		append([]any{first, day, hour}, args...)...)
	if err != nil {
		return store.Report{}, fmt.Errorf("report hours: %w", err)
	}
	err = eachRow(rows, func(sc scanner) error {
		var h int64
		var n int
		if err := sc.Scan(&h, &n); err != nil {
			return err
		}
		r.CountHour(h, n)
		return nil
	})
	if err != nil {
		return store.Report{}, fmt.Errorf("report hours: %w", err)
	}

	// domain.Conversation.FirstResponse, in SQL: never below zero.
	rows, err = s.query(ctx, `SELECT max(first_operator_at - handed_at, 0) FROM conversations
		WHERE `+cond+` AND handed_at IS NOT NULL AND first_operator_at IS NOT NULL ORDER BY 1`, args...)
	if err != nil {
		return store.Report{}, fmt.Errorf("report first responses: %w", err)
	}
	err = eachRow(rows, func(sc scanner) error {
		var ms int64
		if err := sc.Scan(&ms); err != nil {
			return err
		}
		r.FirstResponses = append(r.FirstResponses, time.Duration(ms)*time.Millisecond)
		return nil
	})
	if err != nil {
		return store.Report{}, fmt.Errorf("report first responses: %w", err)
	}

	// The ratings of the period's conversations, wherever they were
	// given: from the account's ratings (few next to its conversations)
	// to each one's conversation.
	rcond, rargs := inPeriod("c.", accountID, f.From, f.To, f.AgentID)
	rows, err = s.query(ctx, `SELECT r.rating, count(*) FROM conversation_ratings r
		JOIN conversations c ON c.id = r.conversation_id
		WHERE r.account_id = ? AND `+rcond+` GROUP BY r.rating`, append([]any{accountID}, rargs...)...)
	if err != nil {
		return store.Report{}, fmt.Errorf("report ratings: %w", err)
	}
	err = eachRow(rows, func(sc scanner) error {
		var score, n int
		if err := sc.Scan(&score, &n); err != nil {
			return err
		}
		r.Ratings.Add(score, n)
		return nil
	})
	if err != nil {
		return store.Report{}, fmt.Errorf("report ratings: %w", err)
	}
	return r, nil
}

// eachRow calls fn on every row of rows and closes them.
func eachRow(rows *sql.Rows, fn func(scanner) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *Store) Questions(ctx context.Context, accountID string, f store.QuestionFilter) ([]store.Question, error) {
	q := `SELECT id, agent_id, conversation_id, seq, text, lang, reason, at, entry_id FROM questions
		WHERE account_id = ? AND at >= ? AND at < ?`
	args := []any{accountID, millis(f.From), millis(f.To)}
	if f.AgentID != "" {
		q += ` AND agent_id = ?`
		args = append(args, f.AgentID)
	}
	if f.Open {
		q += ` AND entry_id = ''`
	}
	// id breaks ties of one millisecond: the later recorded first.
	q += ` ORDER BY at DESC, id DESC LIMIT ` + limitArg
	args = append(args, store.ClampQuestions(f.Limit))
	out, err := queryAll(ctx, s, scanQuestion, q, args...)
	if err != nil {
		return nil, fmt.Errorf("questions: %w", err)
	}
	return out, nil
}

func scanQuestion(sc scanner) (store.Question, error) {
	var q store.Question
	var at int64
	err := sc.Scan(&q.ID, &q.AgentID, &q.ConversationID, &q.Seq, &q.Text, &q.Lang, &q.Reason, &at, &q.EntryID)
	q.At = fromMillis(at)
	return q, err
}

func (s *Store) ResolveQuestions(ctx context.Context, accountID string, ids []int64, entryID string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if err := store.CheckText(accountID, entryID); err != nil {
		return 0, err
	}
	// The ids as one JSON array: one statement, however many there are
	// (SQLite bounds the parameters of a statement).
	list, err := json.Marshal(ids)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(inWrite(ctx), `UPDATE questions SET entry_id = ?
			WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))`, entryID, accountID, string(list))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("resolve questions: %w", err)
	}
	return int(n), nil
}

func (s *Store) OperatorAnswers(ctx context.Context, accountID string, f store.QuestionFilter) ([]store.OperatorAnswer, error) {
	cond, args := inPeriod("c.", accountID, f.From, f.To, f.AgentID)
	// Only conversations an operator wrote in (first_operator_at) have
	// answers: the others' transcripts are never read. Among the visitor's
	// and the operators' messages (the AI's left out), an operator message
	// whose previous one is the visitor's is a first reply to it.
	q := `WITH said AS (
			SELECT c.agent_id, m.conversation_id, m.seq, m.role, m.text, m.operator_name, m.created_at,
				lag(m.role) OVER turn AS prev_role, lag(m.text) OVER turn AS prev_text
			FROM conversations c JOIN messages m ON m.conversation_id = c.id
			WHERE ` + cond + ` AND c.first_operator_at IS NOT NULL AND m.role <> 'ai'
			WINDOW turn AS (PARTITION BY m.conversation_id ORDER BY m.seq))
		SELECT agent_id, conversation_id, prev_text, text, operator_name, created_at FROM said
		WHERE role = 'operator' AND prev_role = 'visitor'
		ORDER BY created_at DESC, seq DESC LIMIT ` + limitArg
	out, err := queryAll(ctx, s, scanOperatorAnswer, q, append(args, store.ClampQuestions(f.Limit))...)
	if err != nil {
		return nil, fmt.Errorf("operator answers: %w", err)
	}
	return out, nil
}

func scanOperatorAnswer(sc scanner) (store.OperatorAnswer, error) {
	var a store.OperatorAnswer
	var at int64
	err := sc.Scan(&a.AgentID, &a.ConversationID, &a.Question, &a.Answer, &a.OperatorName, &at)
	a.At = fromMillis(at)
	return a, err
}
