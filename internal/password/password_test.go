package password

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    string
		want error
	}{
		{"", ErrTooShort},
		{"password1", ErrTooShort}, // 9 characters
		{"пароль-123", nil},        // ten characters, more bytes
		{"日本語のパスワード", ErrTooShort}, // nine characters, 27 bytes
		{"password123", ErrCommon},
		{"PASSWORD123", ErrCommon}, // the list compared in any case
		{"PassWord123", ErrCommon},
		{"qwertyuiop", ErrCommon},
		{"1234567890", ErrCommon},
		{"1q2w3e4r5t", ErrCommon},
		{"correct horse battery staple", nil},
		{"Zq8!vLw3#p", nil},
		{strings.Repeat("x", 72), nil},
		{strings.Repeat("x", 73), ErrTooLong},
		{strings.Repeat("ж", 37), ErrTooLong}, // 74 bytes
	} {
		if err := Check(tt.p); !errors.Is(err, tt.want) {
			t.Errorf("Check(%q) = %v, want %v", tt.p, err, tt.want)
		}
	}
}

// The embedded list is the whole top 10,000: 9,913 entries once case is
// folded (and the one blank line of the file left out).
func TestListIsWhole(t *testing.T) {
	t.Parallel()
	if n := len(common()); n != 9913 {
		t.Fatalf("%d common passwords, want 9913", n)
	}
	for _, p := range []string{"123456", "password", "zzzzzzzz", "*****"} {
		if !Common(p) {
			t.Errorf("%q is not on the list", p)
		}
	}
}
