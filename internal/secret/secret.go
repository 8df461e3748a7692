// Package secret makes random identifiers and tokens and hashes what must
// not be stored in the clear.
package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"

	"golang.org/x/crypto/bcrypt"
)

// lower-case base32 without padding: URL-safe, case-insensitive to read.
var enc = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// ID returns prefix followed by n random bytes in base32. 16 bytes (128 bits)
// make an identifier nobody can guess.
func ID(prefix string, n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand since Go 1.24)
	return prefix + enc.EncodeToString(b)
}

// Identifier prefixes, one per kind, so a stray id tells what it is.
func AccountID() string      { return ID("acc_", 10) }
func AgentID() string        { return ID("ag_", 10) }
func ConversationID() string { return ID("cv_", 16) }
func VisitorID() string      { return ID("v_", 16) }
func WidgetKey() string      { return ID("wk_", 16) }
func APIToken() string       { return ID("pt_", 24) }
func TokenID() string        { return ID("tok_", 10) }
func KnowledgeID() string    { return ID("kb_", 10) }

// IdentitySecret is an agent's key for visitors' user hashes (256 bits).
func IdentitySecret() string { return ID("is_", 32) }

// HashToken hashes a high-entropy token for storage. A fast hash is right for
// random tokens (no dictionary to guess from); passwords use HashPassword.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// HashPassword hashes a password with bcrypt.
func HashPassword(password string) (string, error) {
	if len(password) > 72 {
		return "", errors.New("password is longer than 72 bytes")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(h), err
}

// CheckPassword reports whether password matches a HashPassword hash.
func CheckPassword(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// Equal compares two secrets in constant time.
func Equal(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
