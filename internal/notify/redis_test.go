package notify

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/testsvc"

	"github.com/redis/go-redis/v9"
)

// testRedis is the test Redis (package testsvc: skipped without one unless
// required).
func testRedis(t *testing.T) *redis.Client { return testsvc.Redis(t) }

// testChannel is a channel no other test run listens on. Pub/sub channels
// leave nothing behind in Redis, so there is nothing to clean up.
func testChannel() string { return "parley-test:" + rand.Text() + ":notify" }

var quiet = slog.New(slog.DiscardHandler)

// fastTiming reconnects quickly, so outage tests finish soon.
var fastTiming = redisTiming{
	idle:       time.Second,
	pong:       time.Second,
	minBackoff: 10 * time.Millisecond,
	maxBackoff: 200 * time.Millisecond,
	publish:    time.Second,
	logEvery:   10 * time.Second,
	subscribe:  5 * time.Second,
}

func newTestNotifier(t *testing.T, c redis.UniversalClient, channel string) *RedisNotifier {
	t.Helper()
	n, err := newRedisNotifier(context.Background(), c, channel, quiet, fastTiming)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// generous is how long a signal may take between instances in tests;
// normally it takes a millisecond.
const generous = 5 * time.Second

func wokenWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

func TestRedisNotifierAcrossInstances(t *testing.T) {
	c := testRedis(t)
	ch := testChannel()
	a := newTestNotifier(t, c, ch)
	b := newTestNotifier(t, redis.NewClient(c.Options()), ch)

	conv, cancelConv := b.Subscribe("conv-1")
	defer cancelConv()
	acct, cancelAcct := b.Subscribe("account:1")
	defer cancelAcct()

	a.Publish("conv-1")
	if !wokenWithin(conv, generous) {
		t.Fatal("a's publish did not reach b's waiter")
	}
	// Signals on one channel arrive in order, so once a later one has
	// arrived, an earlier stray wakeup of account:1 would have too.
	marker, cancelMarker := b.Subscribe("marker")
	defer cancelMarker()
	a.Publish("marker")
	if !wokenWithin(marker, generous) {
		t.Fatal("marker did not arrive")
	}
	if closed(acct) {
		t.Fatal("publishing one topic woke another")
	}

	// And the other way round.
	back, cancelBack := a.Subscribe("account:1")
	defer cancelBack()
	b.Publish("account:1")
	if !wokenWithin(back, generous) {
		t.Fatal("b's publish did not reach a's waiter")
	}
}

// A notifier delivers its own publishes locally, at once, and ignores
// their echo from Redis.
func TestRedisNotifierOwnMessages(t *testing.T) {
	c := testRedis(t)
	ch := testChannel()
	a := newTestNotifier(t, c, ch)
	b := newTestNotifier(t, c, ch)

	first, cancel1 := a.Subscribe("x")
	defer cancel1()
	remote, cancelRemote := b.Subscribe("x")
	defer cancelRemote()
	a.Publish("x")
	if !closed(first) {
		t.Fatal("local waiter not woken before Publish returned")
	}
	second, cancel2 := a.Subscribe("x")
	defer cancel2()
	if !wokenWithin(remote, generous) {
		t.Fatal("publish did not reach b")
	}
	// b published its marker after a's "x" went through Redis, so a
	// receives the echo of "x" before the marker.
	marker, cancelMarker := a.Subscribe("marker")
	defer cancelMarker()
	b.Publish("marker")
	if !wokenWithin(marker, generous) {
		t.Fatal("marker did not arrive")
	}
	if closed(second) {
		t.Fatal("a's own message woke it again through Redis")
	}
}

func TestRedisNotifierUnreachableAtStart(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if n, err := NewRedisNotifier(ctx, c, "", quiet); err == nil {
		n.Close()
		t.Fatal("no error for an unreachable Redis")
	}
}

// proxy is a TCP proxy to Redis that a test can cut, to simulate an
// outage of a running Redis, or whose connections it can black-hole, to
// simulate a Redis host that vanished without resetting them.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	links []*link
}

type link struct {
	client, server net.Conn
	frozen         atomic.Bool // drop all bytes from now on
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	return p
}

func (p *proxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			in.Close()
			continue
		}
		l := &link{client: in, server: out}
		p.links = append(p.links, l)
		p.mu.Unlock()
		go l.pipe(in, out)
		go l.pipe(out, in)
	}
}

func (l *link) pipe(dst, src net.Conn) {
	defer l.close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !l.frozen.Load() {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (l *link) close() {
	l.client.Close()
	l.server.Close()
}

// cut drops all connections and refuses new ones until restore.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, l := range p.links {
		l.close()
	}
	p.links = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// freeze silently drops everything on the current connections, which stay
// open; new connections work.
func (p *proxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.links {
		l.frozen.Store(true)
	}
	p.links = nil // cleanup need not close them: the test's clients do
}

// proxied returns a client that reaches c's Redis through a new proxy.
func proxied(t *testing.T, c *redis.Client) (*redis.Client, *proxy) {
	p := newProxy(t, c.Options().Addr)
	opt := *c.Options()
	opt.Addr = p.ln.Addr().String()
	viaProxy := redis.NewClient(&opt)
	t.Cleanup(func() { viaProxy.Close() })
	return viaProxy, p
}

func TestRedisNotifierSurvivesOutage(t *testing.T) {
	c := testRedis(t)
	viaProxy, p := proxied(t, c)
	ch := testChannel()
	a := newTestNotifier(t, viaProxy, ch)
	b := newTestNotifier(t, c, ch)

	// b waits for a signal that a publishes during the outage: a must
	// keep it and send it when Redis is back.
	queued, cancelQueued := b.Subscribe("local")
	defer cancelQueued()

	p.cut()
	// Local delivery does not need Redis.
	local, cancelLocal := a.Subscribe("local")
	defer cancelLocal()
	a.Publish("local")
	if !closed(local) {
		t.Fatal("local publish failed while Redis was unreachable")
	}
	deadline := time.Now().Add(generous)
	for a.PublishFailures() == 0 || a.Reconnects() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("outage not noticed: %d publish failures, %d reconnects", a.PublishFailures(), a.Reconnects())
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Another instance's signal, sent while a is cut off, is lost to a;
	// its waiter must be woken anyway when a resubscribes.
	missed, cancelMissed := a.Subscribe("missed")
	defer cancelMissed()
	publishAsOther(t, c, ch, "missed")
	p.restore()
	if !wokenWithin(missed, 2*generous) {
		t.Fatal("waiter not woken after the subscription came back")
	}
	if !wokenWithin(queued, 2*generous) {
		t.Fatal("the publish made during the outage never reached b")
	}

	// Signals flow again.
	again, cancelAgain := a.Subscribe("again")
	defer cancelAgain()
	b.Publish("again")
	if !wokenWithin(again, generous) {
		t.Fatal("b's publish did not reach a after the outage")
	}
}

// publishAsOther sends topic as another instance would, and returns once
// Redis has taken it (RedisNotifier.Publish returns before that).
func publishAsOther(t *testing.T, c *redis.Client, channel, topic string) {
	t.Helper()
	if err := c.Publish(context.Background(), channel, "other-instance "+topic).Err(); err != nil {
		t.Fatal(err)
	}
}

// A connection that stays open but no longer carries anything (a Redis
// host that vanished without a reset) is found by the ping and replaced.
func TestRedisNotifierDeadConnection(t *testing.T) {
	c := testRedis(t)
	viaProxy, p := proxied(t, c)
	ch := testChannel()
	a := newTestNotifier(t, viaProxy, ch)
	b := newTestNotifier(t, c, ch)

	p.freeze()
	missed, cancelMissed := a.Subscribe("missed")
	defer cancelMissed()
	publishAsOther(t, c, ch, "missed") // lost in the black hole
	// fastTiming finds a silent connection dead within two seconds.
	if !wokenWithin(missed, 3*generous) {
		t.Fatal("stalled subscription was not replaced (or waiters not woken after)")
	}
	if a.Reconnects() == 0 {
		t.Fatal("woken without a reconnection")
	}
	woken, cancel := a.Subscribe("after")
	defer cancel()
	b.Publish("after")
	if !wokenWithin(woken, generous) {
		t.Fatal("no delivery after replacing the stalled subscription")
	}
}

func TestRedisNotifierClose(t *testing.T) {
	c := testRedis(t)
	n := newTestNotifier(t, c, testChannel())
	done := make(chan struct{})
	go func() {
		n.Close()
		n.Close() // idempotent
		close(done)
	}()
	if !wokenWithin(done, generous) {
		t.Fatal("Close did not return")
	}
	// Still a working local notifier.
	w, cancel := n.Subscribe("t")
	defer cancel()
	n.Publish("t")
	if !closed(w) {
		t.Fatal("local publish after Close failed")
	}
}

func TestRedisNotifierNilClient(t *testing.T) {
	if _, err := NewRedisNotifier(context.Background(), nil, "", nil); err == nil {
		t.Fatal("no error for a nil client")
	}
}

func TestRedisNotifierHints(t *testing.T) {
	c := testRedis(t)
	ch := testChannel()
	a := newTestNotifier(t, c, ch)
	b := newTestNotifier(t, redis.NewClient(c.Options()), ch)
	hintsAcross(t, a, b, "cv_hints")
}
