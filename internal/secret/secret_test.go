package secret

import (
	"strings"
	"testing"
)

func TestIDsAreUniqueAndPrefixed(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := WidgetKey()
		if !strings.HasPrefix(id, "wk_") || len(id) != 3+26 {
			t.Fatalf("bad key %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestPassword(t *testing.T) {
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, "correct horse") {
		t.Fatal("hash contains the password")
	}
	if !CheckPassword(h, "correct horse") || CheckPassword(h, "wrong") {
		t.Fatal("CheckPassword gives wrong answers")
	}
	if _, err := HashPassword(strings.Repeat("x", 73)); err == nil {
		t.Fatal("want an error for a password over 72 bytes")
	}
}

func TestHashToken(t *testing.T) {
	a, b := HashToken("pt_a"), HashToken("pt_b")
	if len(a) != 32 || Equal(a, b) || !Equal(a, HashToken("pt_a")) {
		t.Fatal("HashToken is not a stable 32-byte hash")
	}
}
