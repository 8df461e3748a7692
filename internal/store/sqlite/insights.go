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
	return store.BuildReport(f.From, f.To, func(r *store.Report) error {
		if err := s.reportOutcomes(ctx, r, accountID, f); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		return nil
	}, func(r *store.Report) error {
		return s.reportRest(ctx, r, accountID, f)
	})
}

// reportRest reads the thumbs, first responses and ratings of a report.
func (s *Store) reportRest(ctx context.Context, r *store.Report, accountID string, f store.ReportFilter) error {
	first := millis(r.Days[0].Day)
	cond, args := inPeriod("", accountID, f.From, f.To, f.AgentID)

	// The thumbs, from the conversations that have any (the partial
	// index's condition, written as it is there).
	rows, err := s.query(ctx, `SELECT (created_at - ?) / ?, sum(helpful), sum(not_helpful)
		FROM conversations INDEXED BY conversations_thumbs
		WHERE `+cond+` AND (helpful > 0 OR not_helpful > 0) GROUP BY 1`, append([]any{first, dayMillis}, args...)...)
	if err != nil {
		return fmt.Errorf("report thumbs: %w", err)
	}
	err = eachRow(rows, func(sc scanner) error {
		var i int64
		var up, down int
		if err := sc.Scan(&i, &up, &down); err != nil {
			return err
		}
		store.CountThumbs(r.Days, i, up, down)
		return nil
	})
	if err != nil {
		return fmt.Errorf("report thumbs: %w", err)
	}

	// domain.Conversation.FirstResponse, in SQL: never below zero.
	rows, err = s.query(ctx, `SELECT max(first_operator_at - handed_at, 0)
		FROM conversations INDEXED BY conversations_first_responses
		WHERE `+cond+` AND handed_at IS NOT NULL AND first_operator_at IS NOT NULL ORDER BY 1`, args...)
	if err != nil {
		return fmt.Errorf("report first responses: %w", err)
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
		return fmt.Errorf("report first responses: %w", err)
	}

	// The ratings of the period's conversations, wherever they were
	// given: from the account's ratings (fewer than its conversations) to
	// each one's conversation, both read from indexes alone.
	rcond, rargs := inPeriod("c.", accountID, f.From, f.To, f.AgentID)
	rows, err = s.query(ctx, `SELECT r.rating, count(*)
		FROM conversation_ratings r INDEXED BY conversation_ratings_report
		CROSS JOIN conversations c INDEXED BY conversations_period ON c.id = r.conversation_id
		WHERE r.account_id = ? AND `+rcond+` GROUP BY r.rating`, append([]any{accountID}, rargs...)...)
	if err != nil {
		return fmt.Errorf("report ratings: %w", err)
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
		return fmt.Errorf("report ratings: %w", err)
	}
	return nil
}

const dayMillis, hourMillis = int64(store.UTCDay / time.Millisecond), int64(time.Hour / time.Millisecond)

// reportOutcomes counts the period's conversations by outcome into its
// days and by hour of creation into its hours, from one grouping by the
// hour since the epoch (UTC hours nest in UTC days). The whole hours of
// the period are read from conversations_outcomes alone, in its order;
// the parts of an hour at either end, if the period starts or ends
// inside one, by their exact times.
func (s *Store) reportOutcomes(ctx context.Context, r *store.Report, accountID string, f store.ReportFilter) error {
	first := millis(r.Days[0].Day)
	count := func(rows *sql.Rows, err error) error {
		if err != nil {
			return err
		}
		return eachRow(rows, func(sc scanner) error {
			var h int64
			var o domain.Outcome
			var n int
			if err := sc.Scan(&h, &o, &n); err != nil {
				return err
			}
			store.CountOutcome(r.Days, (h*hourMillis-first)/dayMillis, o, n, 0, 0)
			r.CountHour(h%24, n)
			return nil
		})
	}
	exact := func(from, to int64) error {
		if from >= to {
			return nil
		}
		cond, args := inPeriod("", accountID, fromMillis(from), fromMillis(to), f.AgentID)
		return count(s.query(ctx, `SELECT created_at / ?, outcome, count(*) FROM conversations
			WHERE `+cond+` GROUP BY 1, 2`, append([]any{hourMillis}, args...)...))
	}
	from, to := millis(f.From), millis(f.To)
	// The whole hours: from the first that starts at or after from to the
	// last that ends at or before to (none when the period is shorter).
	lo, hi := (from+hourMillis-1)/hourMillis, to/hourMillis
	if lo >= hi {
		return exact(from, to)
	}
	q := `SELECT created_at / 3600000, outcome, count(*) FROM conversations INDEXED BY conversations_outcomes
		WHERE account_id = ? AND created_at / 3600000 >= ? AND created_at / 3600000 < ?`
	args := []any{accountID, lo, hi}
	if f.AgentID != "" {
		q += ` AND agent_id = ?`
		args = append(args, f.AgentID)
	}
	if err := count(s.query(ctx, q+` GROUP BY 1, 2`, args...)); err != nil {
		return err
	}
	if err := exact(from, lo*hourMillis); err != nil {
		return err
	}
	return exact(hi*hourMillis, to)
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
	// answers, and of their messages only the operators' are listed
	// (messages_operator): an operator message is a first reply when the
	// message before it, the AI's left out, is the visitor's. The
	// conversations are walked newest first down their index and the walk
	// stops at the limit: a year of a busy account's operator messages is
	// never read whole (docs/benchmarks.md); only the chosen are read with
	// their texts.
	q := `WITH newest AS MATERIALIZED (
			SELECT c.agent_id, o.conversation_id, o.seq, o.created_at,
				(SELECT CASE p.role WHEN 'visitor' THEN p.seq END FROM messages p
					WHERE p.conversation_id = o.conversation_id AND p.seq < o.seq AND p.role <> 'ai'
					ORDER BY p.seq DESC LIMIT 1) AS asked
			FROM conversations c INDEXED BY conversations_first_responses
			JOIN messages o INDEXED BY messages_operator ON o.conversation_id = c.id AND o.role = 'operator'
			WHERE ` + cond + ` AND c.first_operator_at IS NOT NULL AND (SELECT p.role FROM messages p
					WHERE p.conversation_id = o.conversation_id AND p.seq < o.seq AND p.role <> 'ai'
					ORDER BY p.seq DESC LIMIT 1) = 'visitor'
			ORDER BY c.created_at DESC, o.seq DESC LIMIT ` + limitArg + `)
		SELECT n.agent_id, n.conversation_id, v.text, o.text, o.operator_name, n.created_at
		FROM newest n JOIN messages v ON v.seq = n.asked JOIN messages o ON o.seq = n.seq
		ORDER BY n.created_at DESC, n.seq DESC`
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
