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
)

// sharedState builds what several instances must share: the per-IP rate
// limit and the notifier that wakes long polls and live views. With
// PARLEY_REDIS_URL both live in Redis; without it each instance has its
// own (docs/deploy.md). close releases the Redis connections.
func sharedState(ctx context.Context, cfg config.Config, log *slog.Logger) (notify.Notifier, ratelimit.Limiter, func(), error) {
	if cfg.RedisURL == "" {
		var limiter ratelimit.Limiter
		if cfg.RateLimit > 0 {
			limiter = ratelimit.NewMemory(cfg.RateLimit, time.Minute)
		}
		return notify.NewHub(), limiter, func() {}, nil
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("PARLEY_REDIS_URL: %w", err)
	}
	// Calls abandoned after the limiter's short budget end sooner.
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := rdb.Ping(sctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, nil, fmt.Errorf("redis: %w", err)
	}
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
