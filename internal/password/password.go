// Package password holds the rule every new password must meet: on
// sign-up, a change of password, a team invitation, `parley account create`
// and `parley account password`, and the demo's generated password.
// Passwords set before the rule still sign in: it applies to new ones.
package password

import (
	_ "embed"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"
)

const (
	// MinChars: ten characters put guessing out of reach of the sign-in
	// throttle (docs/operations.md) for anything not on a list.
	MinChars = 10
	// MaxBytes is bcrypt's limit: it ignores what comes after.
	MaxBytes = 72
)

var (
	ErrTooShort = errors.New("the password must be at least 10 characters")
	ErrTooLong  = errors.New("the password must be at most 72 bytes")
	ErrCommon   = errors.New("the password is one of the 10,000 most common: choose another")
)

// Check applies the rule: MinChars to MaxBytes, and not one of the 10,000
// most common passwords in any case ("PASSWORD123" is as weak as
// "password123").
func Check(p string) error {
	switch {
	case utf8.RuneCountInString(p) < MinChars:
		return ErrTooShort
	case len(p) > MaxBytes:
		return ErrTooLong
	case Common(p):
		return ErrCommon
	}
	return nil
}

// commonList is the SecLists/xato "10 million passwords, top 10,000" list
// (MIT; provenance and license in NOTICE beside this file).
//
//go:embed common-passwords.txt
var commonList string

var common = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 10_000)
	for line := range strings.Lines(commonList) {
		if w := strings.ToLower(strings.TrimRight(line, "\r\n")); w != "" {
			set[w] = struct{}{}
		}
	}
	return set
})

// Common reports whether p, in any case, is on the list.
func Common(p string) bool {
	_, ok := common()[strings.ToLower(p)]
	return ok
}
