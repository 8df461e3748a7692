package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"parley/internal/config"
	"parley/internal/notify"
	"parley/internal/ratelimit"
	"parley/internal/redact"
	"parley/internal/store"
	"parley/internal/store/postgres"
)

// sharedState builds what several instances must share: the per-IP rate
// limit and the notifier that wakes long polls and live views. With
// PARLEY_REDIS_URL both live in Redis. Without it the rate limit is each
// instance's own (docs/deploy.md), and on PostgreSQL the instances tell
// each other of changes with LISTEN/NOTIFY. close releases the connections.
func sharedState(ctx context.Context, cfg config.Config, st store.Store, log *slog.Logger) (notify.Notifier, ratelimit.Limiter, func(), error) {
	if cfg.RedisURL == "" {
		var limiter ratelimit.Limiter
		if cfg.RateLimit > 0 {
			limiter = ratelimit.NewMemory(cfg.RateLimit, time.Minute)
		}
		if pg, ok := st.(*postgres.Store); ok {
			n, err := notify.NewPostgresNotifier(ctx, pg.Pool(), cfg.DB, log)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("listening for notifications: %w", redact.Error(err))
			}
			return n, limiter, func() { n.Close() }, nil
		}
		return notify.NewHub(), limiter, func() {}, nil
	}
	rdb, err := dialRedis(ctx, cfg.RedisURL)
	if err != nil {
		return nil, nil, nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := notify.NewRedisNotifier(sctx, rdb, "", log)
	if err != nil {
		rdb.Close()
		return nil, nil, nil, err
	}
	var limiter ratelimit.Limiter
	if cfg.RateLimit > 0 {
		limiter = ratelimit.NewRedis(rdb, cfg.RateLimit, time.Minute, ratelimit.WithRedisLogger(log))
	}
	log.Info("sharing the rate limit and live updates through Redis")
	return n, limiter, func() { n.Close(); rdb.Close() }, nil
}

// dialRedis connects to PARLEY_REDIS_URL and checks that Redis answers.
// Each user gets a client (a connection pool) of its own.
func dialRedis(ctx context.Context, url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("PARLEY_REDIS_URL: %w", redact.Error(err))
	}
	// Calls abandoned after a limiter's short budget end sooner.
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("redis: %w", redact.Error(err))
	}
	return rdb, nil
}
