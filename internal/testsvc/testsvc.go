// Package testsvc finds the PostgreSQL and Redis servers tests run
// against. Without one a test is skipped — unless PARLEY_TEST_POSTGRES or
// PARLEY_TEST_REDIS is "required" (as .ci/run sets them), where a skip
// would hide that nothing was tested, and the test fails instead. Only
// tests import it.
package testsvc

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// PostgresURL is PARLEY_TEST_POSTGRES_URL.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("PARLEY_TEST_POSTGRES_URL")
	if u == "" {
		unavailable(tb, "PARLEY_TEST_POSTGRES",
			"PostgreSQL tests need PARLEY_TEST_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	}
	return u
}

// RedisURL is PARLEY_TEST_REDIS_URL (default the local server, DB 0).
func RedisURL() string {
	if u := os.Getenv("PARLEY_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// Redis connects to RedisURL and closes the client when the test ends.
func Redis(tb testing.TB) *redis.Client {
	tb.Helper()
	url := RedisURL()
	opt, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatalf("PARLEY_TEST_REDIS_URL: %v", err)
	}
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		unavailable(tb, "PARLEY_TEST_REDIS", "no Redis at "+url+" ("+err.Error()+
			"); set PARLEY_TEST_REDIS_URL to use another, PARLEY_TEST_REDIS=required to fail instead of skipping")
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// unavailable skips the test, or fails it when the variable says the
// service is required.
func unavailable(tb testing.TB, required, msg string) {
	tb.Helper()
	if os.Getenv(required) == "required" {
		tb.Fatalf("%s=required: %s", required, msg)
	}
	tb.Skip(msg)
}
