package chat

import (
	"testing"
	"time"
)

// The typing record: a signal is fresh for TypingTTL on the injected
// clock, a new indicator is reported once (not for each signal that
// continues it), and a reply clears the operator's.
func TestTypingRecord(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tp := NewTyping(func() time.Time { return now })
	if n, _ := tp.Operator("c1"); n != "" || tp.Visitor("c1") {
		t.Fatal("typing before any signal")
	}
	if !tp.OperatorTyping("c1", "Ana") {
		t.Fatal("first operator signal does not start an indicator")
	}
	now = now.Add(3 * time.Second)
	if tp.OperatorTyping("c1", "Ana") {
		t.Fatal("a signal that continues the indicator starts another")
	}
	if n, until := tp.Operator("c1"); n != "Ana" || !until.Equal(now.Add(TypingTTL)) {
		t.Fatalf("operator: %q until %v", n, until)
	}
	if !tp.OperatorTyping("c1", "Ion") {
		t.Fatal("another operator's signal does not start an indicator")
	}
	if n, _ := tp.Operator("c2"); n != "" {
		t.Fatal("typing shows in another conversation")
	}
	if tp.Visitor("c1") {
		t.Fatal("operator typing shows as the visitor's")
	}
	now = now.Add(TypingTTL - time.Nanosecond)
	if n, _ := tp.Operator("c1"); n != "Ion" {
		t.Fatal("stale before the TTL")
	}
	now = now.Add(time.Nanosecond)
	if n, _ := tp.Operator("c1"); n != "" {
		t.Fatal("fresh at the TTL")
	}
	if !tp.OperatorTyping("c1", "Ion") {
		t.Fatal("a signal after the TTL does not start a new indicator")
	}
	tp.stopOperator("c1")
	if n, _ := tp.Operator("c1"); n != "" {
		t.Fatal("a reply does not clear the operator's indicator")
	}

	if !tp.VisitorTyping("c1") || tp.VisitorTyping("c1") {
		t.Fatal("visitor: want a new indicator once")
	}
	now = now.Add(TypingTTL - time.Second)
	if !tp.Visitor("c1") {
		t.Fatal("visitor stale before the TTL")
	}
	now = now.Add(time.Second)
	if tp.Visitor("c1") {
		t.Fatal("visitor fresh at the TTL")
	}
}

// Stale entries are dropped once many conversations were typed in.
func TestTypingSweep(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tp := NewTyping(func() time.Time { return now })
	for i := range 2000 {
		tp.VisitorTyping(string(rune('a'+i%26)) + time.Duration(i).String())
	}
	now = now.Add(TypingTTL)
	tp.VisitorTyping("new")
	if n := tp.Len(); n != 1 {
		t.Fatalf("%d entries after the sweep, want 1", n)
	}
}

// The record's notifier handler (every instance applies every typing
// signal through it): an operator's signal on the conversation's topic,
// the visitor's on its team topic, a reply's stop; a new indicator is a
// change (its waiters wake), a continued one or a stop is not.
func TestTypingHints(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tp := NewTyping(func() time.Time { return now })
	if !tp.applyHint("c1", "o:Ana Maria") || tp.applyHint("c1", "o:Ana Maria") {
		t.Fatal("operator: want a change once")
	}
	if n, _ := tp.Operator("c1"); n != "Ana Maria" {
		t.Fatalf("operator %q", n)
	}
	if !tp.applyHint(TeamTopic("c1"), "v") || !tp.Visitor("c1") || tp.Visitor(TeamTopic("c1")) {
		t.Fatal("the visitor's signal on the team topic is not the conversation's")
	}
	if tp.applyHint("c1", "r") {
		t.Fatal("a stop is reported as a change (the reply's own signal wakes)")
	}
	if n, _ := tp.Operator("c1"); n != "" || !tp.Visitor("c1") {
		t.Fatal("the stop did not clear the operator's indicator alone")
	}
	if tp.applyHint("c1", "bogus") || tp.applyHint("c1", "") {
		t.Fatal("unknown data is a change")
	}
}
