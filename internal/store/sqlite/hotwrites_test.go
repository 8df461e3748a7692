package sqlite

import (
	"database/sql"
	"database/sql/driver"
	"strings"
	"testing"
	"time"
)

// panicValuer is an argument whose conversion panics inside the driver
// call.
type panicValuer struct{}

func (panicValuer) Value() (driver.Value, error) { panic("no value") }

// A hot write given a driver.Valuer fails alone, before database/sql sees
// it. Passed on, a Valuer that panics would leave the batch's transaction
// locked inside database/sql, and the store would hang.
func TestHotWriteRefusesValuers(t *testing.T) {
	t.Parallel()
	f := newAgentFixture(t)
	s := f.s
	conv := f.newConversation(t)
	done := make(chan error, 1)
	go func() {
		done <- s.write(t.Context(), func(*sql.Tx) error {
			_, err := s.execHot(hotSetWaiting, panicValuer{}, conv.ID, false)
			return err
		})
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "plain values only") {
			t.Fatalf("write with a Valuer argument = %v, want it refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the store hung on a hot write given a panicking Valuer")
	}
	if _, err := s.SetWaiting(t.Context(), conv.ID, true); err != nil {
		t.Fatalf("the next write: %v", err)
	}
	if c, err := s.Conversation(t.Context(), conv.ID); err != nil || !c.Waiting {
		t.Fatalf("conversation after the next write = %+v, %v", c, err)
	}
}
