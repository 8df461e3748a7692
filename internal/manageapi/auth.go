package manageapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/secret"
)

type accountKey struct{}

// Auth admits requests that carry "Authorization: Bearer <token>"
// with a token of some account, and puts that account in the context.
func (a *API) Auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
			httpx.Message(w, http.StatusUnauthorized, "an API token is required: Authorization: Bearer <token>")
			return
		}
		hash := secret.HashToken(strings.TrimSpace(token))
		acc, err := a.store.AccountByAPIToken(r.Context(), hash)
		if errors.Is(err, domain.ErrNotFound) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley", error="invalid_token"`)
			httpx.Message(w, http.StatusUnauthorized, "the API token is not valid")
			return
		}
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		ctx := context.WithValue(r.Context(), accountKey{}, acc)
		if a.audit != nil {
			actor, err := a.actor(r, hash)
			if err != nil {
				httpx.Error(w, r, err)
				return
			}
			ctx = audit.WithActor(ctx, actor)
		}
		next(w, r.WithContext(ctx))
	}
}

func account(r *http.Request) domain.Account {
	return r.Context().Value(accountKey{}).(domain.Account)
}

// actor is the token of the request, for the audit log: its id and
// name (a token revoked between the two reads is just "API token").
func (a *API) actor(r *http.Request, hash []byte) (audit.Actor, error) {
	act := audit.Actor{Type: audit.ActorAPIToken, Name: "API token"}
	if a.clientIP != nil {
		act.IP = a.clientIP(r)
	}
	t, err := a.store.APITokenByHash(r.Context(), hash)
	if errors.Is(err, domain.ErrNotFound) {
		return act, nil
	}
	if err != nil {
		return audit.Actor{}, err
	}
	act.ID, act.Name = t.ID, t.Name
	return act, nil
}
