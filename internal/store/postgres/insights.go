package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"parley/internal/domain"
	"parley/internal/store"
)

// The owner's reports (issue 20): see store.Insights, and the SQLite
// store's insights.go, which these queries follow, from the indexes of
// migration 0021. Days and hours are computed from the instant (epoch
// seconds), never with date_trunc or the session's TimeZone, so they are
// UTC's whatever TimeZone says.

// inPeriod is the conversations a report reads: the account's, created in
// [from, to), of one agent when agentID is not "". Its parameters are
// numbered after the n already in args.
func inPeriod(alias string, args []any, accountID string, from, to time.Time, agentID string) (string, []any) {
	p := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	cond := alias + `account_id = ` + p(accountID) + ` AND ` + alias + `created_at >= ` + p(ms(from)) +
		` AND ` + alias + `created_at < ` + p(ms(to))
	if agentID != "" {
		cond += ` AND ` + alias + `agent_id = ` + p(agentID)
	}
	return cond, args
}

func (s *Store) Report(ctx context.Context, accountID string, f store.ReportFilter) (store.Report, error) {
	return store.BuildReport(f.From, f.To, func(r *store.Report) error {
		return s.reportOutcomes(ctx, r, accountID, f)
	}, func(r *store.Report) error {
		return s.reportRest(ctx, r, accountID, f)
	})
}

// reportOutcomes counts a report's conversations by day, outcome and hour.
func (s *Store) reportOutcomes(ctx context.Context, r *store.Report, accountID string, f store.ReportFilter) error {
	first := r.Days[0].Day

	// By the hour since the epoch and outcome: UTC hours nest in UTC
	// days, so one grouping gives both the days and the hours of the day.
	cond, args := inPeriod("", nil, accountID, f.From, f.To, f.AgentID)
	// date_part is a double: extract's numeric (PostgreSQL 14 on) costs
	// several times more per row.
	rows, _ := s.pool.Query(ctx, `SELECT floor(date_part('epoch', created_at) / 3600)::bigint, outcome, count(*)
		FROM conversations WHERE `+cond+` GROUP BY 1, 2`, args...)
	var h int64
	var o string
	var n int
	firstHour := first.Unix() / 3600
	_, err := pgx.ForEachRow(rows, []any{&h, &o, &n}, func() error {
		store.CountOutcome(r.Days, (h-firstHour)/24, domain.Outcome(o), n, 0, 0)
		r.CountHour(h%24, n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("report: %w", dbErr(err))
	}
	return nil
}

// reportRest reads the thumbs, first responses and ratings of a report.
func (s *Store) reportRest(ctx context.Context, r *store.Report, accountID string, f store.ReportFilter) error {
	first := r.Days[0].Day
	// The thumbs, from the conversations that have any (the partial
	// index's condition, written as it is there). created_at >= from >=
	// first: the offset is never negative.
	tcond, targs := inPeriod("", []any{first}, accountID, f.From, f.To, f.AgentID)
	rows, _ := s.pool.Query(ctx, `SELECT floor(date_part('epoch', created_at - $1::timestamptz) / 86400)::bigint,
			sum(helpful), sum(not_helpful)
		FROM conversations WHERE `+tcond+` AND (helpful > 0 OR not_helpful > 0) GROUP BY 1`, targs...)
	var i int64
	var n, up, down int
	_, err := pgx.ForEachRow(rows, []any{&i, &up, &down}, func() error {
		store.CountThumbs(r.Days, i, up, down)
		return nil
	})
	if err != nil {
		return fmt.Errorf("report thumbs: %w", dbErr(err))
	}

	cond, args := inPeriod("", nil, accountID, f.From, f.To, f.AgentID)
	// domain.Conversation.FirstResponse, in milliseconds (the stored
	// precision): never below zero.
	rows, _ = s.pool.Query(ctx, `SELECT greatest(round(date_part('epoch', first_operator_at - handed_at) * 1000), 0)::bigint
		FROM conversations WHERE `+cond+` AND handed_at IS NOT NULL AND first_operator_at IS NOT NULL ORDER BY 1`, args...)
	var wait int64
	_, err = pgx.ForEachRow(rows, []any{&wait}, func() error {
		r.FirstResponses = append(r.FirstResponses, time.Duration(wait)*time.Millisecond)
		return nil
	})
	if err != nil {
		return fmt.Errorf("report first responses: %w", dbErr(err))
	}

	// The ratings of the period's conversations, wherever they were given.
	cond, args = inPeriod("c.", []any{accountID}, accountID, f.From, f.To, f.AgentID)
	rows, _ = s.pool.Query(ctx, `SELECT r.rating, count(*) FROM conversation_ratings r
		JOIN conversations c ON c.id = r.conversation_id
		WHERE r.account_id = $1 AND `+cond+` GROUP BY r.rating`, args...)
	var score int
	_, err = pgx.ForEachRow(rows, []any{&score, &n}, func() error {
		r.Ratings.Add(score, n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("report ratings: %w", dbErr(err))
	}
	return nil
}

func (s *Store) Questions(ctx context.Context, accountID string, f store.QuestionFilter) ([]store.Question, error) {
	q := `SELECT id, agent_id, conversation_id, seq, text, lang, reason, at, entry_id FROM questions
		WHERE account_id = $1 AND at >= $2 AND at < $3`
	args := []any{accountID, ms(f.From), ms(f.To)}
	if f.AgentID != "" {
		args = append(args, f.AgentID)
		q += ` AND agent_id = $` + strconv.Itoa(len(args))
	}
	if f.Open {
		q += ` AND entry_id = ''`
	}
	args = append(args, store.ClampQuestions(f.Limit))
	q += ` ORDER BY at DESC, id DESC LIMIT $` + strconv.Itoa(len(args))
	rows, _ := s.pool.Query(ctx, q, args...)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Question, error) {
		var q store.Question
		var reason string
		err := row.Scan(&q.ID, &q.AgentID, &q.ConversationID, &q.Seq, &q.Text, &q.Lang, &reason, &q.At, &q.EntryID)
		q.Reason, q.At = store.QuestionReason(reason), q.At.UTC()
		return q, err
	})
	if err != nil {
		return nil, fmt.Errorf("questions: %w", dbErr(err))
	}
	if out == nil {
		out = []store.Question{}
	}
	return out, nil
}

func (s *Store) ResolveQuestions(ctx context.Context, accountID string, ids []int64, entryID string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if err := store.CheckText(accountID, entryID); err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE questions SET entry_id = $1 WHERE account_id = $2 AND id = ANY($3)`,
		entryID, accountID, ids)
	if err != nil {
		return 0, fmt.Errorf("resolve questions: %w", dbErr(err))
	}
	return int(tag.RowsAffected()), nil
}

func (s *Store) OperatorAnswers(ctx context.Context, accountID string, f store.QuestionFilter) ([]store.OperatorAnswer, error) {
	cond, args := inPeriod("c.", nil, accountID, f.From, f.To, f.AgentID)
	args = append(args, store.ClampQuestions(f.Limit))
	// As SQLite's: only conversations an operator wrote in, only their
	// operators' messages (messages_operator), each a first reply when
	// the message before it, the AI's left out, is the visitor's; those
	// of the newest conversations chosen by that message's role alone,
	// then read with texts.
	rows, _ := s.pool.Query(ctx, `SELECT n.agent_id, n.conversation_id, v.text, o.text, o.operator_name, n.created_at
		FROM (SELECT c.agent_id, o.conversation_id, o.seq, o.created_at, p.seq AS asked
			FROM conversations c
			JOIN messages o ON o.conversation_id = c.id AND o.role = 'operator'
			CROSS JOIN LATERAL (SELECT m.role, m.seq FROM messages m
				WHERE m.conversation_id = o.conversation_id AND m.seq < o.seq AND m.role <> 'ai'
				ORDER BY m.seq DESC LIMIT 1) p
			WHERE `+cond+` AND c.first_operator_at IS NOT NULL AND p.role = 'visitor'
			ORDER BY c.created_at DESC, o.seq DESC LIMIT $`+strconv.Itoa(len(args))+`) n
		JOIN messages v ON v.seq = n.asked JOIN messages o ON o.seq = n.seq
		ORDER BY n.created_at DESC, n.seq DESC`, args...)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.OperatorAnswer, error) {
		var a store.OperatorAnswer
		err := row.Scan(&a.AgentID, &a.ConversationID, &a.Question, &a.Answer, &a.OperatorName, &a.At)
		a.At = a.At.UTC()
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("operator answers: %w", dbErr(err))
	}
	if out == nil {
		out = []store.OperatorAnswer{}
	}
	return out, nil
}
