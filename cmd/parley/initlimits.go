package main

import (
	"context"
	"log/slog"

	"parley/internal/config"
	"parley/internal/initlimit"
	"parley/internal/metrics"
	"parley/internal/ratelimit"
)

// initLimits builds the agents' hourly limits on new conversations. With
// Redis the counts are shared by every instance (a client of their own:
// the counts fail open on their own short timeout); without it they are
// this process's. close releases the Redis client.
func initLimits(ctx context.Context, cfg config.Config, reg *metrics.Registry, log *slog.Logger) (*initlimit.Limiter, func(), error) {
	defaults := initlimit.Settings{PerIP: cfg.ConversationsPerIP, PerVisitor: cfg.ConversationsPerVisitor}
	if cfg.RedisURL == "" {
		c := ratelimit.NewMemoryCounter(initlimit.Window, 0, nil)
		reg.GaugeFunc("parley_init_limit_overflowed", "New conversations let through uncounted by the per-agent limits because their table was full.",
			func() float64 { return float64(c.Overflows()) })
		return initlimit.New(c, defaults, reg), func() {}, nil
	}
	rdb, err := dialRedis(ctx, cfg.RedisURL)
	if err != nil {
		return nil, nil, err
	}
	c := ratelimit.NewRedisCounter(rdb, initlimit.Window, ratelimit.WithRedisLogger(log))
	reg.GaugeFunc("parley_init_limit_redis_failures", "New conversations let through uncounted by the per-agent limits because Redis did not answer (fail open).",
		func() float64 { return float64(c.Failures()) })
	return initlimit.New(c, defaults, reg), func() { rdb.Close() }, nil
}
