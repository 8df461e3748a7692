// Package notify wakes up whoever waits on a conversation (a visitor's long
// poll, later the dashboard's live view) when something happens in it. The
// in-process Hub serves one instance; a database- or Redis-backed notifier
// with the same interface serves several.
package notify

import "sync"

// Notifier delivers "something changed" signals per conversation. Signals
// carry no data: a woken waiter re-reads the store, so a lost or merged
// signal can delay an update but never corrupt one.
type Notifier interface {
	// Subscribe returns a channel that is closed at the next Publish for the
	// conversation, and a function that must be called when done waiting.
	Subscribe(conversationID string) (<-chan struct{}, func())
	Publish(conversationID string)
}

// Hub is the in-process Notifier. Waiters on one conversation share one
// channel, so a publish costs one close however many wait.
type Hub struct {
	mu    sync.Mutex
	waits map[string]*waiters
}

type waiters struct {
	ch   chan struct{}
	refs int
}

func NewHub() *Hub { return &Hub{waits: make(map[string]*waiters)} }

func (h *Hub) Subscribe(id string) (<-chan struct{}, func()) {
	h.mu.Lock()
	w := h.waits[id]
	if w == nil {
		w = &waiters{ch: make(chan struct{})}
		h.waits[id] = w
	}
	w.refs++
	h.mu.Unlock()

	var once sync.Once
	return w.ch, func() {
		once.Do(func() {
			h.mu.Lock()
			w.refs--
			// After a publish the entry is already gone (or replaced).
			if w.refs == 0 && h.waits[id] == w {
				delete(h.waits, id)
			}
			h.mu.Unlock()
		})
	}
}

func (h *Hub) Publish(id string) {
	h.mu.Lock()
	w := h.waits[id]
	delete(h.waits, id)
	h.mu.Unlock()
	if w != nil {
		close(w.ch)
	}
}

// Len is the number of conversations with waiters, for tests and metrics.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.waits)
}

// WakeAll wakes every waiter of every topic: after a time in which signals
// from other instances may have been missed, everyone re-reads the store.
func (h *Hub) WakeAll() {
	h.mu.Lock()
	all := h.waits
	h.waits = make(map[string]*waiters)
	h.mu.Unlock()
	for _, w := range all {
		close(w.ch)
	}
}
