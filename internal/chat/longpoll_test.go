package chat

import "testing"

// A panic in a long poll's read reaches the caller (and the server's
// recovery), and frees its read slot.
func TestOffStackRaisesPanicInCaller(t *testing.T) {
	s := New(Options{})
	for range longPollReaders + 1 {
		func() {
			defer func() {
				if v := recover(); v != "boom" {
					t.Fatalf("recovered %v, want boom", v)
				}
			}()
			s.offStack(func() { panic("boom") })
		}()
	}
	ran := false
	s.offStack(func() { ran = true })
	if !ran {
		t.Fatal("offStack did not run f")
	}
}
