package sources

import (
	"errors"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/outbound"
)

// Each refusal of a new source names its Problem, stays a 400 for the
// API with the same words, and carries the guard's reason for a URL the
// guard refused.
func TestCreateProblems(t *testing.T) {
	t.Parallel()
	// check runs before the store is read: no store is needed.
	svc := New(Options{Guard: outbound.New(outbound.Options{})})
	for _, tc := range []struct {
		in   NewSource
		want Problem
	}{
		{NewSource{Kind: "file", URL: "https://example.com/"}, ProblemKind},
		{NewSource{Kind: "website", URL: "  "}, ProblemURLMissing},
		{NewSource{Kind: "website", URL: "https://example.com/" + strings.Repeat("a", maxURLBytes)}, ProblemURLLong},
		{NewSource{Kind: "website", URL: "https://example.com/\xff"}, ProblemURLText},
		{NewSource{Kind: "website", URL: "example.com"}, ProblemURL},
		{NewSource{Kind: "website", URL: "http://10.1.2.3/"}, ProblemURLRefused},
		{NewSource{Kind: "website", URL: "https://93.184.215.14/", MaxPages: ptr(0)}, ProblemMaxPages},
		{NewSource{Kind: "website", URL: "https://93.184.215.14/", SyncEvery: ptr("weekly")}, ProblemSyncEvery},
		{NewSource{Kind: "website", URL: "https://93.184.215.14/", SyncEvery: ptr("59m")}, ProblemSyncShort},
	} {
		_, err := svc.Create(t.Context(), "acc", "ag", tc.in)
		var ie *InputError
		var invalid *domain.InvalidError
		if !errors.As(err, &ie) || ie.Problem != tc.want || !errors.As(err, &invalid) || invalid.Msg != err.Error() {
			t.Errorf("Create(%q) = %#v, want problem %q and a 400 with its words", tc.in.URL, err, tc.want)
		}
	}
	_, err := svc.Create(t.Context(), "acc", "ag", NewSource{Kind: "website", URL: "http://127.0.0.1/"})
	var refusal *outbound.Refusal
	if !errors.As(err, &refusal) || refusal.Class != outbound.Loopback {
		t.Fatalf("a loopback URL: %v, want the guard's refusal", err)
	}
}
