package notify

import (
	"container/list"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisChannel is the Redis pub/sub channel instances signal on.
const DefaultRedisChannel = "parley:notify"

// redisTiming holds the notifier's delays, so tests can shorten them.
type redisTiming struct {
	// idle is how long the subscription may be silent before we ping, and
	// pong how long the ping may go unanswered before the connection is
	// taken for dead. A half-open TCP connection (Redis host gone, no
	// reset) would otherwise look like a quiet channel forever.
	idle, pong time.Duration
	// Reconnecting and republishing back off from minBackoff to maxBackoff
	// so an outage costs a few attempts per second at most.
	minBackoff, maxBackoff time.Duration
	// publish bounds one batch of PUBLISH commands.
	publish time.Duration
	// logEvery spaces out warnings for repeated failures.
	logEvery time.Duration
	// subscribe bounds the first subscription when the caller's context
	// has no deadline, so a black-holed Redis cannot hang startup.
	subscribe time.Duration
}

var defaultRedisTiming = redisTiming{
	idle:       15 * time.Second,
	pong:       5 * time.Second,
	minBackoff: 100 * time.Millisecond,
	maxBackoff: 5 * time.Second,
	publish:    5 * time.Second,
	logEvery:   10 * time.Second,
	subscribe:  10 * time.Second,
}

const (
	// maxPendingTopics bounds the signals and hints queued for Redis while
	// it is slow or down. Past it, they are dropped (and counted): other instances
	// then learn of the change when their own subscription recovers and
	// wakes everyone, or when their waiters time out.
	maxPendingTopics = 10_000
	// maxBatch is how many PUBLISH commands go in one pipeline.
	maxBatch = 256
)

// RedisNotifier is a Notifier for several instances sharing one Redis.
// Waiting is served by a local Hub; Publish wakes local waiters at once and
// also publishes the topic on a Redis channel, from which every other
// instance wakes its own waiters. Local delivery never depends on Redis, so
// when Redis is down each instance still sees its own events and only the
// cross-instance ones are delayed.
//
// Messages are "<instance id> <topic>", or for a hint "<instance id>
// <topic> <kind> <data>" (hint.go). An instance skips its own, which it
// has already delivered locally. Redis pub/sub does not queue messages
// for a subscriber that is away, so after every reconnection the notifier
// wakes all its local waiters: they re-read the store and find whatever
// they missed (signals carry no data, so a spurious wakeup is harmless).
type RedisNotifier struct {
	hub     *Hub
	client  redis.UniversalClient
	channel string
	self    string // this instance's message prefix: id and a space
	log     *slog.Logger
	timing  redisTiming

	ctx       context.Context // done at Close; governs both goroutines
	stop      context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once

	psMu   sync.Mutex
	ps     *redis.PubSub // the current subscription, so Close can end it
	closed bool

	waitMu  sync.Mutex
	waiting map[string]int // local waiters per topic, for waking all

	pendMu  sync.Mutex
	pending list.List                // wire forms (hint.go) not yet sent to Redis, oldest first
	queued  map[string]*list.Element // the same, by wire form
	kick    chan struct{}            // tells the publisher there is work

	dropped         atomic.Uint64
	publishFailures atomic.Uint64
	reconnects      atomic.Uint64
}

var _ Notifier = (*RedisNotifier)(nil)

// NewRedisNotifier subscribes to channel ("" means DefaultRedisChannel) and
// returns once Redis has confirmed the subscription, or an error if it
// cannot within ctx (or ten seconds when ctx has no deadline), so that a
// wrong address fails at startup rather than silently. After that, Redis
// outages are logged and survived; ctx no longer matters. The caller owns
// client, must call Close, and closes client after it.
func NewRedisNotifier(ctx context.Context, client redis.UniversalClient, channel string, logger *slog.Logger) (*RedisNotifier, error) {
	return newRedisNotifier(ctx, client, channel, logger, defaultRedisTiming)
}

func newRedisNotifier(ctx context.Context, client redis.UniversalClient, channel string, logger *slog.Logger, timing redisTiming) (*RedisNotifier, error) {
	if client == nil {
		return nil, errors.New("notify: NewRedisNotifier needs a Redis client")
	}
	if channel == "" {
		channel = DefaultRedisChannel
	}
	if logger == nil {
		logger = slog.Default()
	}
	subCtx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		subCtx, cancel = context.WithTimeout(ctx, timing.subscribe)
		defer cancel()
	}
	ps := client.Subscribe(subCtx, channel)
	if err := confirm(subCtx, ps); err != nil {
		ps.Close()
		return nil, fmt.Errorf("notify: subscribing to Redis channel %q: %w", channel, err)
	}

	n := &RedisNotifier{
		hub:     NewHub(),
		client:  client,
		channel: channel,
		self:    rand.Text() + " ",
		log:     logger,
		timing:  timing,
		ps:      ps,
		waiting: make(map[string]int),
		queued:  make(map[string]*list.Element),
		kick:    make(chan struct{}, 1),
	}
	// Keep ctx's values but not its deadline or cancellation: the
	// goroutines live until Close.
	n.ctx, n.stop = context.WithCancel(context.WithoutCancel(ctx))
	n.wg.Add(2)
	go n.receive(ps)
	go n.send()
	return n, nil
}

// confirm waits for Redis to acknowledge the SUBSCRIBE, which go-redis
// sends without waiting for the reply.
func confirm(ctx context.Context, ps *redis.PubSub) error {
	msg, err := ps.Receive(ctx)
	if err != nil {
		return err
	}
	if sub, ok := msg.(*redis.Subscription); !ok || sub.Kind != "subscribe" {
		return fmt.Errorf("unexpected first reply %v", msg)
	}
	return nil
}

// Subscribe implements Notifier.
func (n *RedisNotifier) Subscribe(topic string) (<-chan struct{}, func()) {
	n.waitMu.Lock()
	n.waiting[topic]++
	n.waitMu.Unlock()
	ch, cancel := n.hub.Subscribe(topic)
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			cancel()
			n.waitMu.Lock()
			if n.waiting[topic]--; n.waiting[topic] <= 0 {
				delete(n.waiting, topic)
			}
			n.waitMu.Unlock()
		})
	}
}

// Publish implements Notifier. It wakes local waiters before returning and
// queues the topic for Redis; it never waits for Redis, because callers
// publish on their request path.
func (n *RedisNotifier) Publish(topic string) {
	n.hub.Publish(topic)
	n.enqueue(topic)
}

// PublishHint implements Notifier: applied here before it returns, and
// queued for Redis like a signal.
func (n *RedisNotifier) PublishHint(topic string, h Hint) {
	n.hub.PublishHint(topic, h)
	n.enqueue(hintWire(topic, h, " "))
}

// OnHint implements Notifier.
func (n *RedisNotifier) OnHint(kind string, apply HintHandler) { n.hub.OnHint(kind, apply) }

// Len is the number of topics with local waiters, for metrics.
func (n *RedisNotifier) Len() int { return n.hub.Len() }

// Dropped reports how many publishes were not sent to Redis because too
// many topics were already queued (Redis down or slow).
func (n *RedisNotifier) Dropped() uint64 { return n.dropped.Load() }

// PublishFailures reports how many batches Redis failed to take; they are
// retried.
func (n *RedisNotifier) PublishFailures() uint64 { return n.publishFailures.Load() }

// Reconnects reports how many times the subscription was lost and made
// again.
func (n *RedisNotifier) Reconnects() uint64 { return n.reconnects.Load() }

// Close stops listening and publishing to Redis and waits for the
// background goroutines. Topics still queued are not sent. Local Subscribe
// and Publish keep working. Close does not close the Redis client.
func (n *RedisNotifier) Close() error {
	n.closeOnce.Do(func() {
		n.stop()
		n.psMu.Lock()
		n.closed = true
		if n.ps != nil {
			// Unblocks a pending receive, which does not watch the context.
			n.ps.Close()
			n.ps = nil
		}
		n.psMu.Unlock()
		n.wg.Wait()
	})
	return nil
}

// receive delivers other instances' messages until Close, making a new
// subscription whenever the current one fails.
func (n *RedisNotifier) receive(ps *redis.PubSub) {
	defer n.wg.Done()
	backoff := n.timing.minBackoff
	var lastLog time.Time
	for {
		subscribed, err := n.listen(ps)
		ps.Close()
		if n.ctx.Err() != nil {
			return
		}
		n.reconnects.Add(1)
		if subscribed {
			backoff = n.timing.minBackoff // it worked for a while; retry at once
		}
		if time.Since(lastLog) >= n.timing.logEvery {
			lastLog = time.Now()
			n.log.Warn("notify: Redis subscription lost; other instances' changes are delayed until it is back",
				"channel", n.channel, "err", err)
		}
		if !n.sleep(backoff) {
			return
		}
		backoff = min(2*backoff, n.timing.maxBackoff)
		if ps = n.resubscribe(); ps == nil {
			return
		}
	}
}

// resubscribe starts a new subscription and records it for Close; it
// returns nil if Close came first.
func (n *RedisNotifier) resubscribe() *redis.PubSub {
	// Subscribe dials, so it runs outside the lock Close takes.
	ps := n.client.Subscribe(n.ctx, n.channel)
	n.psMu.Lock()
	defer n.psMu.Unlock()
	if n.closed {
		ps.Close()
		return nil
	}
	n.ps = ps
	return ps
}

// listen reads from ps until it fails. subscribed reports whether Redis
// confirmed the subscription on the way.
func (n *RedisNotifier) listen(ps *redis.PubSub) (subscribed bool, err error) {
	pinged := false
	for {
		wait := n.timing.idle
		if pinged {
			wait = n.timing.pong
		}
		msg, err := ps.ReceiveTimeout(n.ctx, wait)
		if err != nil {
			var ne net.Error
			if !pinged && errors.As(err, &ne) && ne.Timeout() {
				// A quiet channel, or a dead connection: the pong tells.
				if err := ps.Ping(n.ctx); err != nil {
					return subscribed, err
				}
				pinged = true
				continue
			}
			if pinged && errors.As(err, &ne) && ne.Timeout() {
				err = fmt.Errorf("no answer to ping within %v: %w", n.timing.pong, err)
			}
			return subscribed, err
		}
		pinged = false // any reply shows the connection is alive
		switch m := msg.(type) {
		case *redis.Message:
			n.deliver(m.Payload)
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				// The first confirmation was read by the constructor, so
				// this one ends an outage.
				subscribed = true
				n.log.Info("notify: Redis subscription restored", "channel", n.channel)
				n.wakeAll()
			}
		}
	}
}

// deliver applies another instance's message: wakes local waiters, or
// applies a hint and wakes them if it changed anything.
func (n *RedisNotifier) deliver(payload string) {
	if strings.HasPrefix(payload, n.self) {
		return // ours, delivered locally when published
	}
	_, wire, ok := strings.Cut(payload, " ")
	if !ok {
		return // not sent by a RedisNotifier
	}
	if topic, h, isHint := parseWire(wire, " "); isHint {
		n.hub.deliverHint(topic, h)
	} else {
		n.hub.Publish(topic)
	}
}

// wakeAll wakes every local waiter, after a time in which messages may
// have been missed.
func (n *RedisNotifier) wakeAll() {
	n.waitMu.Lock()
	topics := make([]string, 0, len(n.waiting))
	for t := range n.waiting {
		topics = append(topics, t)
	}
	n.waitMu.Unlock()
	for _, t := range topics {
		n.hub.Publish(t)
	}
}
