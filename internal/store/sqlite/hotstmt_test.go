package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
)

// panicValuer is an argument whose conversion panics inside the driver
// call.
type panicValuer struct{}

func (panicValuer) Value() (driver.Value, error) { panic("no value") }

// A hot statement that panics fails its write alone. Without the recover
// in execHot, sql.Conn.Raw would report the connection broken and wait,
// to close it, for the batch's transaction, which waits for it: the store
// would hang.
func TestHotStatementPanicFailsOnlyItsWrite(t *testing.T) {
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
		if err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Fatalf("write with a panicking statement = %v, want the panic as an error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the store hung on a panicking hot statement")
	}
	if _, err := s.SetWaiting(t.Context(), conv.ID, true); err != nil {
		t.Fatalf("the next write: %v", err)
	}
	if c, err := s.Conversation(t.Context(), conv.ID); err != nil || !c.Waiting {
		t.Fatalf("conversation after the next write = %+v, %v", c, err)
	}
}

func TestDriverValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   any
		want driver.Value
	}{
		{"text", "text"},
		{domain.RoleOperator, "operator"}, // a named string type
		{domain.ModeHuman, "human"},
		{int64(-7), int64(-7)},
		{42, int64(42)},
		{int32(5), int64(5)},
		{true, true},
		{[]byte("b"), []byte("b")},
		{nil, nil},
	} {
		got, err := driverValue(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("driverValue(%#v) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	if _, err := driverValue(struct{}{}); err == nil {
		t.Error("driverValue of a struct succeeded")
	}
}

// The statements follow the connection they run on: given another one,
// they are prepared again there, and run against its database.
func TestHotStatementsFollowTheConnection(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var hs hotStmts
	defer hs.close()
	var conns [2]*sql.Conn
	for i := range conns {
		db, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "db")))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := db.Exec(`CREATE TABLE conversations (id TEXT, waiting INTEGER)`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO conversations VALUES ('c', 0)`); err != nil {
			t.Fatal(err)
		}
		if conns[i], err = db.Conn(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conns[i].Close() })
	}
	set := func(c *sql.Conn) {
		t.Helper()
		err := c.Raw(func(dc any) error {
			st, err := hs.stmt(dc, hotSetWaiting)
			if err != nil {
				return err
			}
			_, err = st.(driver.StmtExecContext).ExecContext(context.Background(), []driver.NamedValue{
				{Ordinal: 1, Value: int64(1)}, {Ordinal: 2, Value: "c"}, {Ordinal: 3, Value: int64(1)}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	waiting := func(c *sql.Conn) (w int) {
		t.Helper()
		if err := c.QueryRowContext(ctx, `SELECT waiting FROM conversations`).Scan(&w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	set(conns[0])
	if a, b := waiting(conns[0]), waiting(conns[1]); a != 1 || b != 0 {
		t.Fatalf("after a run on the first connection: waiting %d and %d, want 1 and 0", a, b)
	}
	set(conns[1])
	if b := waiting(conns[1]); b != 1 {
		t.Fatalf("a run on the second connection did not reach its database (waiting %d)", b)
	}
}
