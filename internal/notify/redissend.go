package notify

import (
	"context"
	"slices"
	"time"
)

// The queue of what a RedisNotifier has still to send, and its sender.
//
// The queue is ordered, and a wire form already queued is moved to the
// end rather than queued twice: the others then get each message's latest
// occurrence in publishing order, so a hint published before a signal
// (chat's "the operator stopped typing" before the wake of their reply)
// is applied there before that signal wakes anyone, whatever was queued
// before. Left in place, a repeated signal could overtake the hint.

// enqueue queues a wire form for Redis and tells the sender; past
// maxPendingTopics it is dropped and counted.
func (n *RedisNotifier) enqueue(wire string) {
	if n.ctx.Err() != nil {
		return // closed: local delivery only
	}
	n.pendMu.Lock()
	if e, ok := n.queued[wire]; ok {
		n.pending.MoveToBack(e)
	} else {
		if n.pending.Len() >= maxPendingTopics {
			n.pendMu.Unlock()
			n.dropped.Add(1)
			return
		}
		n.queued[wire] = n.pending.PushBack(wire)
	}
	n.pendMu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default: // the publisher is already due to look
	}
}

// send publishes the queue to Redis until Close, in pipelined batches,
// retrying failed batches with backoff.
func (n *RedisNotifier) send() {
	defer n.wg.Done()
	backoff := n.timing.minBackoff
	var lastLog time.Time
	failing := false
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.kick:
		}
		for batch := n.take(); len(batch) > 0; batch = n.take() {
			err := n.publish(batch)
			if err == nil {
				if failing {
					failing = false
					n.log.Info("notify: publishing to Redis works again", "channel", n.channel)
				}
				backoff = n.timing.minBackoff
				continue
			}
			n.publishFailures.Add(1)
			n.requeue(batch)
			failing = true
			if time.Since(lastLog) >= n.timing.logEvery {
				lastLog = time.Now()
				n.log.Warn("notify: publishing to Redis failed; other instances' waiters are not woken until it works",
					"channel", n.channel, "err", err)
			}
			if !n.sleep(backoff) {
				return
			}
			backoff = min(2*backoff, n.timing.maxBackoff)
		}
	}
}

// take removes up to maxBatch wire forms from the front of the queue.
func (n *RedisNotifier) take() []string {
	n.pendMu.Lock()
	defer n.pendMu.Unlock()
	batch := make([]string, 0, min(n.pending.Len(), maxBatch))
	for len(batch) < maxBatch && n.pending.Len() > 0 {
		w := n.pending.Remove(n.pending.Front()).(string)
		delete(n.queued, w)
		batch = append(batch, w)
	}
	return batch
}

// requeue puts back a batch that failed at the front, in its order, as far
// as there is room. One queued again meanwhile stays where it is: that
// later occurrence is the one to keep.
func (n *RedisNotifier) requeue(batch []string) {
	n.pendMu.Lock()
	defer n.pendMu.Unlock()
	for _, w := range slices.Backward(batch) {
		if _, queued := n.queued[w]; queued {
			continue
		}
		if n.pending.Len() >= maxPendingTopics {
			n.dropped.Add(1)
			continue
		}
		n.queued[w] = n.pending.PushFront(w)
	}
}

func (n *RedisNotifier) publish(batch []string) error {
	ctx, cancel := context.WithTimeout(n.ctx, n.timing.publish)
	defer cancel()
	pipe := n.client.Pipeline()
	for _, t := range batch {
		pipe.Publish(ctx, n.channel, n.self+t)
	}
	_, err := pipe.Exec(ctx)
	return err
}

// sleep waits for d, or returns false at Close.
func (n *RedisNotifier) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-n.ctx.Done():
		return false
	}
}
