package manageapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

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
		acc, err := a.store.AccountByAPIToken(r.Context(), secret.HashToken(strings.TrimSpace(token)))
		if errors.Is(err, domain.ErrNotFound) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley", error="invalid_token"`)
			httpx.Message(w, http.StatusUnauthorized, "the API token is not valid")
			return
		}
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), accountKey{}, acc)))
	}
}

func account(r *http.Request) domain.Account {
	return r.Context().Value(accountKey{}).(domain.Account)
}
