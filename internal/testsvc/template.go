package testsvc

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Migrating a new SQLite database costs about 0.3 s under -race (a few ms
// without), and hundreds of tests start from an empty one. CopyOf makes
// such a database once per test binary and gives each test a copy of its
// files, which opens in a tenth of the time.

type template struct {
	once  sync.Once
	files map[string][]byte // name in the directory → contents
	err   error
}

var templates sync.Map // name → *template

// CopyOf returns the path of file in a new directory of tb's holding a copy
// of what build left in a directory of its own. build runs once per name in
// the test binary (the first caller's), given the path file has in that
// directory; it must leave everything in files that stay valid when
// copied (a closed SQLite database).
func CopyOf(tb testing.TB, name, file string, build func(path string) error) string {
	tb.Helper()
	v, _ := templates.LoadOrStore(name, &template{})
	tpl := v.(*template)
	tpl.once.Do(func() { tpl.files, tpl.err = buildTemplate(file, build) })
	if tpl.err != nil {
		tb.Fatalf("making the %s template: %v", name, tpl.err)
	}
	dir := tb.TempDir()
	for f, b := range tpl.files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return filepath.Join(dir, file)
}

// buildTemplate runs build in a temporary directory and reads back every
// file it left there.
func buildTemplate(file string, build func(path string) error) (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "parley-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := build(filepath.Join(dir, file)); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", e.Name())
		}
		if files[e.Name()], err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
			return nil, err
		}
	}
	if _, ok := files[file]; !ok {
		return nil, fmt.Errorf("build left no %s", file)
	}
	return files, nil
}
