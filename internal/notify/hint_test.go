package notify

import (
	"container/list"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// A hint on one instance: its handlers run before PublishHint returns,
// and the topic's waiters wake only when a handler saw a change, or when
// the kind has no handler at all.
func TestHubHints(t *testing.T) {
	h := NewHub()
	var got []string
	changes := true
	h.OnHint("typing", func(topic, data string) bool {
		got = append(got, topic+"="+data)
		return changes
	})
	second := 0
	h.OnHint("typing", func(string, string) bool { second++; return false })

	w, cancel := h.Subscribe("c1")
	defer cancel()
	h.PublishHint("c1", Hint{Kind: "typing", Data: "o:Ana"})
	if strings.Join(got, ",") != "c1=o:Ana" || second != 1 {
		t.Fatalf("handlers saw %v and %d", got, second)
	}
	if !closed(w) {
		t.Fatal("a hint that changed something did not wake the topic")
	}
	changes = false
	w, cancel = h.Subscribe("c1")
	defer cancel()
	h.PublishHint("c1", Hint{Kind: "typing", Data: "o:Ana"})
	if closed(w) {
		t.Fatal("a hint that changed nothing woke the topic")
	}
	h.PublishHint("c1", Hint{Kind: "unknown", Data: "x"})
	if !closed(w) {
		t.Fatal("a hint of a kind without handler did not wake the topic")
	}
	for _, bad := range []string{"", "a b", "a|b", "Typing"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("kind %q accepted", bad)
				}
			}()
			h.OnHint(bad, func(string, string) bool { return true })
		}()
	}
}

// The wire form carries any data (spaces, the separators, NUL, invalid
// UTF-8) and reads back; data over MaxHintData travels as a plain signal;
// a plain signal and a damaged hint read as signals.
func TestHintWire(t *testing.T) {
	for _, sep := range []string{" ", "|"} {
		for _, data := range []string{"", "o:Ana Popescu", "a|b c", "x\x00y", "\xff\xfe", strings.Repeat("я", MaxHintData/2)} {
			w := hintWire("cv_1", Hint{Kind: "typing", Data: data}, sep)
			topic, h, isHint := parseWire(w, sep)
			if !isHint || topic != "cv_1" || h.Kind != "typing" || h.Data != data {
				t.Errorf("sep %q data %q: read back %q %+v %v", sep, data, topic, h, isHint)
			}
		}
		long := hintWire("cv_1", Hint{Kind: "typing", Data: strings.Repeat("x", MaxHintData+1)}, sep)
		if long != "cv_1" {
			t.Errorf("sep %q: an over-long hint's wire form is %q, want the plain signal", sep, long)
		}
		for _, w := range []string{"account:acc_1", "cv_1" + sep + "typing" + sep + "!!not base64!!"} {
			if topic, _, isHint := parseWire(w, sep); isHint || topic != strings.Split(w, sep)[0] {
				t.Errorf("sep %q: %q read as %q, hint %v", sep, w, topic, isHint)
			}
		}
	}
}

// The Redis queue keeps publishing order, and a repeat of something still
// queued moves it to the end: a hint published before a signal is sent
// before it, whatever was queued earlier. A failed batch goes back in
// front, in order, except what was queued again meanwhile.
func TestRedisQueueOrder(t *testing.T) {
	n := &RedisNotifier{ctx: context.Background(), queued: map[string]*list.Element{}, kick: make(chan struct{}, 1)}
	stop := hintWire("cv_1", Hint{Kind: "typing", Data: "r"}, " ")
	n.enqueue("cv_1")
	n.enqueue("account:1")
	n.enqueue(stop)
	n.enqueue("cv_1") // the reply's wake, after its hint
	batch := n.take()
	if want := []string{"account:1", stop, "cv_1"}; !slices.Equal(batch, want) {
		t.Fatalf("sent %q, want %q", batch, want)
	}
	n.enqueue("cv_2")
	n.enqueue(stop)
	n.requeue(batch) // the send failed
	if got, want := n.take(), []string{"account:1", "cv_1", "cv_2", stop}; !slices.Equal(got, want) {
		t.Fatalf("after a failed send: %q, want %q", got, want)
	}
	if n.pending.Len() != 0 || len(n.queued) != 0 {
		t.Fatal("take left entries behind")
	}
}

// hintRecorder is a handler for one topic that records what it is given
// and reports a change for data starting with "new". Hints for other
// topics (other test runs share PostgreSQL's channel) are ignored.
type hintRecorder struct {
	topic string
	mu    sync.Mutex
	got   []string
}

func (r *hintRecorder) apply(topic, data string) bool {
	if topic != r.topic {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, data)
	return strings.HasPrefix(data, "new")
}

func (r *hintRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// hintsAcross checks hints between two instances a and b of one
// multi-instance notifier: b's handler gets a's data; b's waiters wake for
// a hint that changes something there and not for one that does not; a
// hint published before a signal is applied on b before the signal wakes
// b's waiter; and a applies its own hints once, not again from the echo.
func hintsAcross(t *testing.T, a, b Notifier, topic string) {
	t.Helper()
	onA, onB := &hintRecorder{topic: topic}, &hintRecorder{topic: topic}
	a.OnHint("test", onA.apply)
	b.OnHint("test", onB.apply)

	w, cancel := b.Subscribe(topic)
	defer cancel()
	a.PublishHint(topic, Hint{Kind: "test", Data: "new Ana|x\x00"})
	if !wokenWithin(w, generous) {
		t.Fatal("a hint that changes something did not wake the other instance's waiter")
	}
	if got := onB.seen(); len(got) != 1 || got[0] != "new Ana|x\x00" {
		t.Fatalf("b's handler saw %q", got)
	}

	// Not a change there: applied, nobody woken.
	w, cancel = b.Subscribe(topic)
	defer cancel()
	a.PublishHint(topic, Hint{Kind: "test", Data: "same"})
	for deadline := time.Now().Add(generous); len(onB.seen()) < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second hint did not reach b")
		}
	}
	if closed(w) {
		t.Fatal("a hint that changed nothing on b woke its waiter")
	}
	// Hints published before a signal are all applied on b by the time
	// the signal wakes b's waiter.
	for i := range 20 {
		a.PublishHint(topic, Hint{Kind: "test", Data: "same " + string(rune('a'+i))})
	}
	a.Publish(topic)
	if !wokenWithin(w, generous) {
		t.Fatal("the signal did not wake the other instance's waiter")
	}
	if got := onB.seen(); len(got) != 22 || got[21] != "same t" {
		t.Fatalf("b's handler had seen %d of the 20 hints (last %q) when the signal after them woke its waiter", len(got)-2, got[len(got)-1])
	}
	// a's own hints ran once each, on a, and never came back through the
	// notifier: a marker from b arrives after any echo would have.
	marker, cancelMarker := a.Subscribe(topic + "-marker")
	defer cancelMarker()
	b.Publish(topic + "-marker")
	if !wokenWithin(marker, generous) {
		t.Fatal("b's marker did not reach a")
	}
	if got := onA.seen(); len(got) != 22 {
		t.Fatalf("a's handler ran %d times for its own 22 hints", len(got))
	}
}
