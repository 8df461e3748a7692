package notify

import (
	"encoding/base64"
	"strings"
	"sync"
)

// A Hint is a small piece of in-memory state that one instance tells the
// others along with a signal (see Notifier). Kind chooses the handlers
// (OnHint); Data is theirs to interpret.
type Hint struct {
	Kind string // lower-case letters, digits, '-' and '_'
	Data string // at most MaxHintData bytes
}

// MaxHintData bounds a hint's data, so every notifier can carry it
// (PostgreSQL's NOTIFY takes under 8,000 bytes). A longer one is applied
// on this instance only; the others get a plain signal for the topic.
const MaxHintData = 1024

// A HintHandler applies a hint's data for topic on one instance and
// reports whether that changed anything its waiters show: only then are
// they woken. Handlers run on the publisher's goroutine (this instance's
// hints) or the notifier's receiving goroutine (the others'), so they must
// be quick and must not block.
type HintHandler func(topic, data string) (changed bool)

// hintHandlers are an instance's handlers by kind.
type hintHandlers struct {
	mu sync.RWMutex
	m  map[string][]HintHandler
}

func (hh *hintHandlers) add(kind string, apply HintHandler) {
	checkKind(kind)
	hh.mu.Lock()
	defer hh.mu.Unlock()
	if hh.m == nil {
		hh.m = map[string][]HintHandler{}
	}
	hh.m[kind] = append(hh.m[kind], apply)
}

// apply runs the handlers of h's kind and reports whether the topic's
// waiters should wake: when any handler saw a change, or when there is
// none (an instance that does not know the kind wakes its waiters, who
// re-read what they can; waking is the safe side).
func (hh *hintHandlers) apply(topic string, h Hint) bool {
	hh.mu.RLock()
	handlers := hh.m[h.Kind]
	hh.mu.RUnlock()
	if len(handlers) == 0 {
		return true
	}
	changed := false
	for _, apply := range handlers {
		if apply(topic, h.Data) {
			changed = true
		}
	}
	return changed
}

// checkKind panics on a kind the wire formats cannot carry: kinds are
// constants in code, so this is a programming error.
func checkKind(kind string) {
	ok := kind != ""
	for _, r := range kind {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			ok = false
		}
	}
	if !ok {
		panic("notify: bad hint kind " + `"` + kind + `"`)
	}
}

// OnHint implements Notifier.
func (h *Hub) OnHint(kind string, apply HintHandler) { h.hints.add(kind, apply) }

// PublishHint implements Notifier: with one instance, the hint is applied
// here and the topic's waiters woken if it changed anything.
func (h *Hub) PublishHint(topic string, hint Hint) {
	checkKind(hint.Kind)
	if h.hints.apply(topic, hint) {
		h.Publish(topic)
	}
}

// deliver applies a hint from another instance and wakes the topic's
// waiters if it changed anything.
func (h *Hub) deliverHint(topic string, hint Hint) {
	if h.hints.apply(topic, hint) {
		h.Publish(topic)
	}
}

// The wire form of a signal between instances is its topic, and of a hint
// "topic<sep>kind<sep>data" with the data in unpadded URL-safe base64: any
// bytes (a name with a NUL, invalid UTF-8) then pass PostgreSQL's NOTIFY,
// and sep (a space on Redis, '|' on PostgreSQL, neither in a topic, a kind
// or base64) splits it. An older instance reads a hint's wire form as an
// unknown topic and wakes no one.

// hintWire is the wire form of a hint for topic, or the plain signal's
// when the data is too long to carry.
func hintWire(topic string, h Hint, sep string) string {
	if len(h.Data) > MaxHintData {
		return topic
	}
	return topic + sep + h.Kind + sep + base64.RawURLEncoding.EncodeToString([]byte(h.Data))
}

// parseWire reads a signal's or a hint's wire form. A hint whose data does
// not decode is taken as a plain signal.
func parseWire(s, sep string) (topic string, h Hint, isHint bool) {
	topic, rest, found := strings.Cut(s, sep)
	if !found {
		return s, Hint{}, false
	}
	kind, data, found := strings.Cut(rest, sep)
	b, err := base64.RawURLEncoding.DecodeString(data)
	if !found || err != nil || kind == "" {
		return topic, Hint{}, false
	}
	return topic, Hint{Kind: kind, Data: string(b)}, true
}
