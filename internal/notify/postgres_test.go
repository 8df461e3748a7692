package notify

import (
	"context"
	"testing"
	"time"

	"parley/internal/testsvc"

	"github.com/jackc/pgx/v5/pgxpool"
)

func postgresPool(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	url := testsvc.PostgresURL(t)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, url
}

func TestPostgresNotifierAcrossInstances(t *testing.T) {
	pool, url := postgresPool(t)
	ctx := context.Background()
	a, err := NewPostgresNotifier(ctx, pool, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewPostgresNotifier(ctx, pool, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	topic := "cv_" + a.id // unique per run: other test runs share the channel
	woken, cancel := b.Subscribe(topic)
	defer cancel()
	other, cancelOther := b.Subscribe(topic + "-other")
	defer cancelOther()
	local, cancelLocal := a.Subscribe(topic)
	defer cancelLocal()

	a.Publish(topic)
	select {
	case <-local: // at once, without the database
	default:
		t.Fatal("the local waiter was not woken at once")
	}
	select {
	case <-woken:
	case <-time.After(5 * time.Second):
		t.Fatal("the other instance was not woken")
	}
	select {
	case <-other:
		t.Fatal("a waiter on another topic was woken")
	default:
	}
}

func TestPostgresNotifierHints(t *testing.T) {
	pool, url := postgresPool(t)
	ctx := context.Background()
	a, err := NewPostgresNotifier(ctx, pool, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewPostgresNotifier(ctx, pool, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	hintsAcross(t, a, b, "cv_hints_"+a.id) // unique per run: other test runs share the channel
}

func TestHubWakeAll(t *testing.T) {
	h := NewHub()
	a, ca := h.Subscribe("a")
	b, cb := h.Subscribe("b")
	defer ca()
	defer cb()
	h.WakeAll()
	for _, ch := range []<-chan struct{}{a, b} {
		select {
		case <-ch:
		default:
			t.Fatal("a waiter was not woken")
		}
	}
	if h.Len() != 0 {
		t.Fatal("WakeAll left entries")
	}
}
