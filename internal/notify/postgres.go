package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresChannel is the LISTEN/NOTIFY channel instances signal on.
const PostgresChannel = "parley_notify"

// PostgresNotifier is a Notifier for several instances sharing one
// PostgreSQL and no Redis. Like RedisNotifier it wakes local waiters at
// once and tells the other instances in the background (NOTIFY), so a slow
// or absent database never delays this instance's own events; one
// connection LISTENs for the others' and reconnects when it breaks.
type PostgresNotifier struct {
	hub     *Hub
	pool    *pgxpool.Pool
	connect func(ctx context.Context) (*pgx.Conn, error)
	id      string
	log     *slog.Logger

	outbox chan string // wire forms (hint.go), sent in order by one goroutine
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewPostgresNotifier starts listening. url is the database URL (the
// listener needs its own connection, outside the pool).
func NewPostgresNotifier(ctx context.Context, pool *pgxpool.Pool, url string, log *slog.Logger) (*PostgresNotifier, error) {
	if log == nil {
		log = slog.Default()
	}
	b := make([]byte, 8)
	rand.Read(b)
	n := &PostgresNotifier{
		hub: NewHub(), pool: pool, id: hex.EncodeToString(b), log: log,
		connect: func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, url) },
		outbox:  make(chan string, maxPendingTopics),
	}
	conn, err := n.listenConn(ctx)
	if err != nil {
		return nil, err
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.wg.Add(2)
	go n.receive(conn)
	go n.send()
	return n, nil
}

func (n *PostgresNotifier) listenConn(ctx context.Context) (*pgx.Conn, error) {
	conn, err := n.connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+PostgresChannel); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

func (n *PostgresNotifier) Subscribe(topic string) (<-chan struct{}, func()) {
	return n.hub.Subscribe(topic)
}

// Publish wakes local waiters now and queues the topic for the others; a
// full queue drops it (their waiters then answer when their wait ends).
func (n *PostgresNotifier) Publish(topic string) {
	n.hub.Publish(topic)
	n.queue(topic)
}

// PublishHint implements Notifier: applied here now, then queued for the
// others behind what this instance published before (one sender, in
// order), and dropped like a signal when the queue is full.
func (n *PostgresNotifier) PublishHint(topic string, h Hint) {
	n.hub.PublishHint(topic, h)
	n.queue(hintWire(topic, h, "|"))
}

// OnHint implements Notifier.
func (n *PostgresNotifier) OnHint(kind string, apply HintHandler) { n.hub.OnHint(kind, apply) }

func (n *PostgresNotifier) queue(wire string) {
	select {
	case n.outbox <- wire:
	default:
	}
}

// Close stops both goroutines.
func (n *PostgresNotifier) Close() error {
	n.cancel()
	n.wg.Wait()
	return nil
}

func (n *PostgresNotifier) send() {
	defer n.wg.Done()
	for {
		select {
		case <-n.ctx.Done():
			return
		case wire := <-n.outbox:
			ctx, cancel := context.WithTimeout(n.ctx, 5*time.Second)
			_, err := n.pool.Exec(ctx, "SELECT pg_notify($1, $2)", PostgresChannel, n.id+"|"+wire)
			cancel()
			if err != nil && n.ctx.Err() == nil {
				n.log.Warn("notifying other instances failed", "err", err)
			}
		}
	}
}

func (n *PostgresNotifier) receive(conn *pgx.Conn) {
	defer n.wg.Done()
	backoff := 100 * time.Millisecond
	for {
		for {
			note, err := conn.WaitForNotification(n.ctx)
			if err != nil {
				break
			}
			backoff = 100 * time.Millisecond
			id, wire, ok := strings.Cut(note.Payload, "|")
			if !ok || id == n.id {
				continue
			}
			if topic, h, isHint := parseWire(wire, "|"); isHint {
				n.hub.deliverHint(topic, h)
			} else {
				n.hub.Publish(topic)
			}
		}
		conn.Close(context.Background())
		if n.ctx.Err() != nil {
			return
		}
		n.log.Warn("lost the PostgreSQL notification connection; reconnecting")
		for {
			select {
			case <-n.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			ctx, cancel := context.WithTimeout(n.ctx, 5*time.Second)
			c, err := n.listenConn(ctx)
			cancel()
			if err == nil {
				conn = c
				break
			}
		}
		// Notifications sent while we were away are lost: wake everyone
		// here so they re-read the store.
		n.hub.WakeAll()
	}
}
