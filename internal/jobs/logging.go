package jobs

import (
	"context"
	"log/slog"
)

// riverLogs is the handler River logs through: its info lines (a client
// started, job counts every few seconds while jobs run, a cleanup done)
// become debug, so an instance's info log stays Parley's own; its warnings
// and errors (a job failed, the database unreachable) stay as they are.
type riverLogs struct{ h slog.Handler }

func quietRiver(log *slog.Logger) *slog.Logger { return slog.New(riverLogs{log.Handler()}) }

func demote(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

func (q riverLogs) Enabled(ctx context.Context, l slog.Level) bool {
	return q.h.Enabled(ctx, demote(l))
}

func (q riverLogs) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return q.h.Handle(ctx, r)
}

func (q riverLogs) WithAttrs(as []slog.Attr) slog.Handler { return riverLogs{q.h.WithAttrs(as)} }
func (q riverLogs) WithGroup(name string) slog.Handler    { return riverLogs{q.h.WithGroup(name)} }
