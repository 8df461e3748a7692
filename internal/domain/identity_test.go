package domain

import (
	"errors"
	"strings"
	"testing"
)

func TestVerifyIdentity(t *testing.T) {
	t.Parallel()
	const secret = "is_secret"
	good := UserHash(secret, "user-42")
	on := true
	required := AgentConfig{RequireIdentity: &on}
	tests := []struct {
		name    string
		cfg     AgentConfig
		secret  string
		id      Identity
		want    VerifiedIdentity
		wantErr error
		invalid bool
	}{
		{"anonymous", AgentConfig{}, secret, Identity{}, VerifiedIdentity{}, nil, false},
		{"right hash", AgentConfig{}, secret, Identity{UserID: "user-42", UserHash: good, Name: "Ana", Email: "ana@example.com"},
			VerifiedIdentity{UserID: "user-42", Name: "Ana", Email: "ana@example.com", Verified: true}, nil, false},
		{"right hash in upper case", AgentConfig{}, secret, Identity{UserID: "user-42", UserHash: strings.ToUpper(good)},
			VerifiedIdentity{UserID: "user-42", Verified: true}, nil, false},
		{"wrong hash", AgentConfig{}, secret, Identity{UserID: "user-43", UserHash: good}, VerifiedIdentity{}, ErrIdentityRefused, false},
		{"hash of another secret", AgentConfig{}, secret, Identity{UserID: "user-42", UserHash: UserHash("old", "user-42")}, VerifiedIdentity{}, ErrIdentityRefused, false},
		{"not hex", AgentConfig{}, secret, Identity{UserID: "user-42", UserHash: "zz"}, VerifiedIdentity{}, ErrIdentityRefused, false},
		{"agent without a secret", AgentConfig{}, "", Identity{UserID: "user-42", UserHash: UserHash("", "user-42")}, VerifiedIdentity{}, ErrIdentityRefused, false},
		{"user id without hash is dropped", AgentConfig{}, secret, Identity{UserID: "user-42", Name: "Ana"},
			VerifiedIdentity{Name: "Ana"}, nil, false},
		{"required, anonymous", required, secret, Identity{}, VerifiedIdentity{}, ErrIdentityRefused, false},
		{"required, hash missing", required, secret, Identity{UserID: "user-42"}, VerifiedIdentity{}, ErrIdentityRefused, false},
		{"required, right hash", required, secret, Identity{UserID: "user-42", UserHash: good}, VerifiedIdentity{UserID: "user-42", Verified: true}, nil, false},
		{"hash without user id", AgentConfig{}, secret, Identity{UserHash: good}, VerifiedIdentity{}, nil, true},
		{"long user id", AgentConfig{}, secret, Identity{UserID: strings.Repeat("u", 201)}, VerifiedIdentity{}, nil, true},
		{"long name", AgentConfig{}, secret, Identity{Name: strings.Repeat("n", 101)}, VerifiedIdentity{}, nil, true},
		{"long email", AgentConfig{}, secret, Identity{Email: strings.Repeat("e", 255)}, VerifiedIdentity{}, nil, true},
		{"long hash", AgentConfig{}, secret, Identity{UserID: "u", UserHash: strings.Repeat("a", 129)}, VerifiedIdentity{}, nil, true},
		{"bounds are characters", AgentConfig{}, secret, Identity{Name: strings.Repeat("ș", 100)}, VerifiedIdentity{Name: strings.Repeat("ș", 100)}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cfg.VerifyIdentity(tt.secret, tt.id)
			var inv *InvalidError
			switch {
			case tt.invalid:
				if !errors.As(err, &inv) {
					t.Fatalf("err %v, want an *InvalidError", err)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("err %v", err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRequireIdentityConfig(t *testing.T) {
	t.Parallel()
	c, err := ParseAgentConfig([]byte(`{"require_identity":true,"greeting":"Hi"}`))
	if err != nil || c.RequireIdentity == nil || !*c.RequireIdentity {
		t.Fatalf("parse: %+v %v", c.RequireIdentity, err)
	}
	if strings.Contains(string(c.Public()), "require_identity") {
		t.Errorf("require_identity shown to visitors: %s", c.Public())
	}
	if _, err := ParseAgentConfig([]byte(`{"require_identity":"yes"}`)); err == nil || !strings.Contains(err.Error(), "config.require_identity must be true or false") {
		t.Errorf("a string: %v", err)
	}
}
