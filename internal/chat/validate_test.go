package chat

import (
	"errors"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/web/i18n"
)

func isInvalid(err error) bool {
	var inv *domain.InvalidError
	return errors.As(err, &inv)
}

func TestCheckText(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		valid bool
	}{
		{"plain", "hello", true},
		{"2000 ASCII", strings.Repeat("a", 2000), true},
		{"2000 Cyrillic (4000 bytes)", strings.Repeat("ж", 2000), true},
		{"2000 astral emoji (8000 bytes)", strings.Repeat("😀", 2000), true},
		{"2001 ASCII", strings.Repeat("a", 2001), false},
		{"2001 Cyrillic", strings.Repeat("ж", 2001), false},
		{"empty", "", false},
		{"whitespace", " \t\n\u00a0", false},
		{"invalid UTF-8", "a\xffb", false},
	}
	for _, tt := range tests {
		err := checkText(tt.text)
		if (err == nil) != tt.valid || (err != nil && !isInvalid(err)) {
			t.Errorf("%s: err = %v, want valid=%v", tt.name, err, tt.valid)
		}
	}
}

func TestNormalizeLang(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "en"}, {"en", "en"}, {"RO", "ro"}, {"ro-RO", "ro"}, {"ru_RU", "ru"}, {"En-Gb", "en"},
		{"de", ""}, {"english", ""}, {"r", ""}, {"-ro", ""},
	}
	for _, tt := range tests {
		got, err := NormalizeLang(tt.in)
		if tt.want == "" {
			if err == nil || !isInvalid(err) {
				t.Errorf("NormalizeLang(%q) = %q, %v; want a 400 error", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeLang(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// The 400's text is the spec's (docs/api.md), made from the one list.
	if _, err := NormalizeLang("de"); err == nil || err.Error() != "lang must be one of en, ro, ru" {
		t.Errorf("NormalizeLang(de): %v", err)
	}
	for _, l := range i18n.Languages {
		if got, err := NormalizeLang(strings.ToUpper(l)); err != nil || got != l {
			t.Errorf("NormalizeLang(%q) = %q, %v: every language Parley speaks is accepted", strings.ToUpper(l), got, err)
		}
	}
}

func TestCheckKey(t *testing.T) {
	if err := checkKey(""); !isInvalid(err) {
		t.Errorf("empty key: %v, want 400", err)
	}
	if err := checkKey("pk_123"); !errors.Is(err, domain.ErrKeyInvalid) {
		t.Errorf("foreign key: %v, want ErrKeyInvalid", err)
	}
	if err := checkKey("wk_abc"); err != nil {
		t.Errorf("wk_ key: %v", err)
	}
}

func TestCheckVisitorID(t *testing.T) {
	for _, id := range []string{"", "v_1", strings.Repeat("я", 128)} {
		if err := checkVisitorID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{strings.Repeat("v", 129), "a\x00b", "line\nbreak", "\x7f"} {
		if err := checkVisitorID(id); !isInvalid(err) {
			t.Errorf("%q: %v, want 400", id, err)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, seq := range []int64{0, 1, 35, 36, 1 << 40} {
		for _, human := range []bool{false, true} {
			got, err := DecodeCursor(EncodeCursor(seq, human))
			if want := (Cursor{Seq: seq, Human: human, Set: true}); err != nil || got != want {
				t.Errorf("round trip of %d, human %v: %+v, %v", seq, human, got, err)
			}
		}
	}
	if c, err := DecodeCursor(""); c != (Cursor{}) || err != nil {
		t.Errorf("empty cursor: %+v, %v", c, err)
	}
	// A cursor made before the mode was in it reads as the AI's.
	if c, err := DecodeCursor("c8"); c != (Cursor{Seq: 8, Set: true}) || err != nil {
		t.Errorf("c8: %+v, %v", c, err)
	}
	for _, bad := range []string{"c", "h", "x1", "1", "c-1", "h+1", "c+1", "c!", "czzzzzzzzzzzzzzzzzzzzz"} {
		if _, err := DecodeCursor(bad); !isInvalid(err) {
			t.Errorf("DecodeCursor(%q) = %v, want 400", bad, err)
		}
	}
}
