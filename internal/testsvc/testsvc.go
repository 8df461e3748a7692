// Package testsvc finds the PostgreSQL and Redis servers (and tells of the
// browser) tests run against. Without one a test is skipped — unless
// PARLEY_TEST_POSTGRES, PARLEY_TEST_REDIS or PARLEY_E2E is "required" (as
// .ci/run sets them), where a skip would hide that nothing was tested, and
// the test fails instead. Only tests import it.
package testsvc

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// PostgresURL is PARLEY_TEST_POSTGRES_URL.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("PARLEY_TEST_POSTGRES_URL")
	if u == "" {
		Unavailable(tb, "PARLEY_TEST_POSTGRES", "PostgreSQL",
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
		Unavailable(tb, "PARLEY_TEST_REDIS", "Redis", "no Redis at "+url+" ("+err.Error()+
			"); set PARLEY_TEST_REDIS_URL to use another, PARLEY_TEST_REDIS=required to fail instead of skipping")
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// Unavailable skips the test because a service (group: "PostgreSQL",
// "Redis", "Chromium") is missing, or fails it when the variable required
// is "required".
//
// A skip is also told once per group to the person at the terminal:
// `go test ./...` shows nothing of a passing package without -v, so a
// laptop without PostgreSQL would otherwise pass "ok" having tested none
// of it. The go command captures the test's stdout and stderr, so the
// line goes to /dev/tty; where there is none (CI, an editor) nothing more
// is said and the skip message stays for -v.
func Unavailable(tb testing.TB, required, group, msg string) {
	tb.Helper()
	if os.Getenv(required) == "required" {
		tb.Fatalf("%s=required: %s", required, msg)
	}
	announce(group, msg)
	tb.Skip(msg)
}

var announced sync.Map // group → struct{}

// openTerminal opens the controlling terminal (a variable for the test).
var openTerminal = func() (io.WriteCloser, error) { return os.OpenFile("/dev/tty", os.O_WRONLY, 0) }

// announce writes "pkg: skipping the <group> tests: msg" to the terminal,
// once per group in this test binary.
func announce(group, msg string) {
	if _, done := announced.LoadOrStore(group, struct{}{}); done {
		return
	}
	tty, err := openTerminal()
	if err != nil {
		return
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s: skipping the %s tests: %s\n", testedPackage(), group, msg)
}

// testedPackage is the import path of the package under test (a test
// binary's main module path is "<package>.test").
func testedPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return "parley"
}
