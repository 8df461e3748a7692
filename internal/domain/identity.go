package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Verified visitors (identity verification, issue 18). The owner's site
// tells the widget who a signed-in visitor is: a user id, optionally a
// name and an email, and user_hash, the hex HMAC-SHA256 of the user id
// keyed with the agent's identity secret. Only the owner's server knows
// the secret, so a page cannot claim another user's id. A user id
// without a valid hash is never trusted: it links nothing and opens no
// history.

// ConfigRequireIdentity is the config's key: when true, init refuses
// visitors without a valid user_id and user_hash.
const ConfigRequireIdentity = "require_identity"

// Bounds of the identity fields of init, in characters.
const (
	MaxUserIDChars   = 200
	MaxUserHashChars = 128
	MaxNameChars     = 100
	MaxEmailChars    = 254
)

// ErrIdentityRefused: a user_hash that does not match, or no verified
// identity where the agent requires one. A 403.
var ErrIdentityRefused = errors.New("the visitor's identity could not be verified")

// Identity is what a page says about its visitor at init.
type Identity struct {
	UserID   string
	UserHash string
	Name     string
	Email    string
}

// VerifiedIdentity is what Parley keeps of an Identity: UserID only when
// it was verified, Name and Email as given, and whether they were.
type VerifiedIdentity struct {
	UserID   string
	Name     string
	Email    string
	Verified bool
}

// Check bounds the fields: each too long one is an *InvalidError (400).
func (id Identity) Check() error {
	switch {
	case utf8.RuneCountInString(id.UserID) > MaxUserIDChars:
		return Invalid("user_id is longer than 200 characters")
	case len(id.UserHash) > MaxUserHashChars:
		return Invalid("user_hash is longer than 128 characters")
	case utf8.RuneCountInString(id.Name) > MaxNameChars:
		return Invalid("name is longer than 100 characters")
	case utf8.RuneCountInString(id.Email) > MaxEmailChars:
		return Invalid("email is longer than 254 characters")
	case id.UserHash != "" && id.UserID == "":
		return Invalid("user_hash needs a user_id")
	}
	return nil
}

// UserHash is the hex HMAC-SHA256 of userID keyed with secret: what the
// owner's server computes and puts in the page.
func UserHash(secret, userID string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(userID))
	return hex.EncodeToString(m.Sum(nil))
}

// VerifyIdentity applies the agent's identity rule to what a page sent,
// with the agent's identity secret ("" when it has none yet: then no hash
// matches). It is the only place the rule is decided:
//   - a user_id with a user_hash that matches (compared in constant time,
//     hex case ignored) is verified;
//   - a user_hash that does not match is ErrIdentityRefused;
//   - a user_id without a hash is dropped (never trusted); the name and
//     email are kept, unverified;
//   - without a verified user, an agent with require_identity refuses
//     (ErrIdentityRefused).
func (c AgentConfig) VerifyIdentity(secret string, id Identity) (VerifiedIdentity, error) {
	if err := id.Check(); err != nil {
		return VerifiedIdentity{}, err
	}
	out := VerifiedIdentity{Name: id.Name, Email: id.Email}
	if id.UserID != "" && id.UserHash != "" {
		got, err := hex.DecodeString(id.UserHash)
		if err != nil || secret == "" {
			return VerifiedIdentity{}, ErrIdentityRefused
		}
		want := hmac.New(sha256.New, []byte(secret))
		want.Write([]byte(id.UserID))
		if !hmac.Equal(got, want.Sum(nil)) {
			return VerifiedIdentity{}, ErrIdentityRefused
		}
		out.UserID, out.Verified = id.UserID, true
	}
	if !out.Verified && c.RequireIdentity != nil && *c.RequireIdentity {
		return VerifiedIdentity{}, ErrIdentityRefused
	}
	return out, nil
}

// requireIdentityField is the member's field, for knownFields.
var requireIdentityField = configField{ConfigRequireIdentity, func(c *AgentConfig, raw json.RawMessage) error {
	var on *bool
	if json.Unmarshal(raw, &on) != nil {
		c.RequireIdentity = nil
		return configErr(ConfigRequireIdentity, "must be true or false")
	}
	c.RequireIdentity = on
	return nil
}, func(c *AgentConfig) json.RawMessage {
	if c.RequireIdentity == nil {
		return nil
	}
	return marshal(*c.RequireIdentity)
}}
