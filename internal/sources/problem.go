package sources

import "parley/internal/domain"

// Problem names what was wrong with a NewSource, so that the dashboard
// can say it in the owner's language instead of the API's English.
type Problem string

const (
	ProblemKind       Problem = "kind"        // not "website"
	ProblemURLMissing Problem = "url.missing" // no URL
	ProblemURLLong    Problem = "url.long"    // longer than maxURLBytes
	ProblemURLText    Problem = "url.text"    // text a store cannot keep
	// ProblemURL: not an http(s) URL with a host (the guard's
	// *outbound.URLError is in InputError.Err).
	ProblemURL Problem = "url"
	// ProblemURLRefused: the URL leads to an address the guard refuses
	// (its *outbound.Refusal is in InputError.Err).
	ProblemURLRefused Problem = "url.refused"
	ProblemMaxPages   Problem = "max_pages"
	ProblemSyncEvery  Problem = "sync_every"       // not a duration
	ProblemSyncShort  Problem = "sync_every.short" // shorter than MinSyncEvery
	ProblemTooMany    Problem = "count"            // MaxSourcesPerAgent reached
)

// Problems lists every Problem, for message catalogues that must name
// each.
var Problems = []Problem{ProblemKind, ProblemURLMissing, ProblemURLLong, ProblemURLText, ProblemURL,
	ProblemURLRefused, ProblemMaxPages, ProblemSyncEvery, ProblemSyncShort, ProblemTooMany}

// InputError is a refused NewSource. It is a *domain.InvalidError for
// errors.As (the API answers 400 with Msg), and also the guard's error
// when the guard refused the URL.
type InputError struct {
	Problem Problem
	Msg     string // in English, as the API says it
	Err     error  // the guard's error for ProblemURL and ProblemURLRefused; nil otherwise
}

func (e *InputError) Error() string { return e.Msg }

func (e *InputError) Unwrap() []error {
	if e.Err == nil {
		return []error{&domain.InvalidError{Msg: e.Msg}}
	}
	return []error{&domain.InvalidError{Msg: e.Msg}, e.Err}
}

func invalid(p Problem, msg string) error { return &InputError{Problem: p, Msg: msg} }
