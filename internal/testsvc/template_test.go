package testsvc

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// CopyOf builds once per name and hands each caller copies of every file
// the build left, apart from each other's.
func TestCopyOf(t *testing.T) {
	t.Parallel()
	var builds atomic.Int32
	build := func(path string) error {
		builds.Add(1)
		if err := os.WriteFile(path, []byte("main"), 0o600); err != nil {
			return err
		}
		return os.WriteFile(path+"-wal", []byte("side"), 0o600)
	}
	a := CopyOf(t, "copyof-test", "x.db", build)
	b := CopyOf(t, "copyof-test", "x.db", build)
	if n := builds.Load(); n != 1 {
		t.Fatalf("built %d times, want once", n)
	}
	if filepath.Dir(a) == filepath.Dir(b) {
		t.Fatalf("both copies in %s", filepath.Dir(a))
	}
	if err := os.WriteFile(a, []byte("changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "changed", b: "main", b + "-wal": "side", a + "-wal": "side"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s holds %q (%v), want %q", path, got, err, want)
		}
	}
}
