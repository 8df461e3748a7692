package testsvc

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// A skipped group is told to the terminal once, naming the package and
// what to set, however many tests skip for it.
func TestUnavailableTellsTheTerminalOncePerGroup(t *testing.T) {
	var tty bytes.Buffer
	openTerminal = func() (io.WriteCloser, error) { return nopCloser{&tty}, nil }
	t.Setenv("PARLEY_TEST_X", "")
	for _, group := range []string{"Xbase", "Xbase", "Ybase"} {
		t.Run(group, func(t *testing.T) {
			Unavailable(t, "PARLEY_TEST_X", group, "set PARLEY_TEST_X_URL")
			t.Error("Unavailable returned instead of skipping")
		})
	}
	want := "parley/internal/testsvc: skipping the Xbase tests: set PARLEY_TEST_X_URL\n" +
		"parley/internal/testsvc: skipping the Ybase tests: set PARLEY_TEST_X_URL\n"
	if got := tty.String(); got != want {
		t.Errorf("terminal got:\n%s\nwant:\n%s", got, want)
	}
}

// Where the service is required (CI), the test fails instead.
func TestUnavailableFailsWhenRequired(t *testing.T) {
	t.Setenv("PARLEY_TEST_Z", "required")
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { recover() }()
		Unavailable(ft, "PARLEY_TEST_Z", "Z", "no Z here")
	}()
	if !strings.Contains(ft.msg, "PARLEY_TEST_Z=required: no Z here") {
		t.Errorf("Fatalf got %q", ft.msg)
	}
}

// fatalRecorder records Fatalf instead of ending the test, and panics to
// stop the caller as Fatalf's Goexit would.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}
