package sources

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"parley/internal/crawler"
	"parley/internal/domain"
	"parley/internal/store"
	"parley/web/i18n"
)

// errGone stops a crawl whose source was deleted meanwhile.
var errGone = errors.New("the source was deleted")

// RunSync crawls the source's site and replaces its pages with what it
// found, all at once: the job queue's worker calls it. While it runs the
// source is syncing and its page count grows; at the end it is ready (with
// a note of what it left out) or failed with the reason in plain words,
// its earlier pages answering still. A source deleted before or during
// the sync is no error: there is nothing left to do. The error returned is
// one the queue should retry (the database failed, the context ended),
// not the site's: a site that fails is the sync's outcome, recorded.
func (s *Service) RunSync(ctx context.Context, sourceID string) error {
	src, err := s.o.Store.SourceByID(ctx, sourceID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.o.Store.StartSourceSync(ctx, src.ID); err != nil {
		return gone(err)
	}
	room, err := s.room(ctx, src)
	if err != nil {
		return err
	}
	t := taking{s: s, src: src, room: room, seen: map[[32]byte]bool{}}
	res, err := s.crawl(ctx, crawler.Config{Client: s.o.Guard.Client(), MaxPages: src.MaxPages}, src.URL, func(d crawler.Document) error {
		return t.take(ctx, d)
	})
	switch {
	case errors.Is(err, errGone):
		return nil
	case ctx.Err() != nil:
		return ctx.Err() // shutting down: the queue runs it again
	case err != nil:
		return s.fail(ctx, src, "the site could not be read: "+err.Error(), crawlReasons(err))
	case len(t.pages) == 0:
		msg, why := t.nothing(res)
		return s.fail(ctx, src, msg, why)
	}
	note, why := t.note(res)
	err = s.o.Store.ReplaceSourcePages(ctx, src.ID, t.pages, store.SourceSync{At: s.o.Now(), Note: note, NoteReasons: why})
	if err != nil {
		return gone(err)
	}
	s.o.Invalidate(src.AgentID)
	return nil
}

// gone is nil for a source deleted meanwhile, err otherwise.
func gone(err error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	return err
}

// fail records a failed sync: why in words, and as reasons.
func (s *Service) fail(ctx context.Context, src domain.Source, msg string, why []domain.Reason) error {
	return gone(s.o.Store.FailSourceSync(ctx, src.ID, store.SourceFailure{At: s.o.Now(), Error: msg, Reasons: why}))
}

// room is how many characters of page text src may take in: the agent's
// bound less what its other sources hold.
func (s *Service) room(ctx context.Context, src domain.Source) (int, error) {
	all, err := s.o.Store.Sources(ctx, src.AccountID, src.AgentID)
	if err != nil {
		return 0, err
	}
	room := s.o.MaxChars
	for _, o := range all {
		if o.ID != src.ID {
			room -= o.Chars
		}
	}
	return max(room, 0), nil
}

// taking is what a sync has taken in so far.
type taking struct {
	s     *Service
	src   domain.Source
	room  int // characters left under the agent's bound
	pages []domain.SourcePage
	seen  map[[32]byte]bool // texts taken, to skip identical pages

	unreadable, duplicate, cut, overBound int
}

// take extracts one document and keeps its text, unless it has none, is a
// copy of one kept, or does not fit under the bound.
func (t *taking) take(ctx context.Context, d crawler.Document) error {
	doc, err := t.s.extract(d.Body, d.URL)
	text := strings.TrimSpace(doc.Text)
	if err != nil || text == "" {
		t.unreadable++
		return nil
	}
	if utf8.RuneCountInString(text) > MaxPageChars {
		text = cutRunes(text, MaxPageChars)
		t.cut++
	}
	sum := sha256.Sum256([]byte(text))
	if t.seen[sum] {
		t.duplicate++
		return nil
	}
	n := utf8.RuneCountInString(text)
	if n > t.room {
		t.overBound++
		return nil // a smaller page further on may still fit
	}
	t.seen[sum] = true
	t.room -= n
	title := strings.TrimSpace(doc.Title)
	if title == "" {
		title = d.URL
	}
	lang := ""
	if slices.Contains(i18n.Languages, doc.Lang) {
		lang = doc.Lang
	}
	t.pages = append(t.pages, domain.SourcePage{URL: d.URL, Title: title, Text: text, Lang: lang})
	if len(t.pages)%progressEvery == 0 {
		if err := t.s.o.Store.SetSourceProgress(ctx, t.src.ID, len(t.pages)); err != nil {
			if errors.Is(err, domain.ErrNotFound) {
				return errGone
			}
			return err
		}
	}
	return nil
}

// cutRunes is s cut to its first n characters.
func cutRunes(s string, n int) string {
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// note says what a sync that took pages in left out, in words and as
// reasons, one for each part; "" and none when nothing.
func (t *taking) note(res crawler.Result) (string, []domain.Reason) {
	var parts []string
	var why []domain.Reason
	if t.overBound > 0 {
		parts = append(parts, fmt.Sprintf("%d pages were left out: the agent's sources may hold %d characters of text, all together (PARLEY_SOURCES_MAX_CHARS)",
			t.overBound, t.s.o.MaxChars))
		why = append(why, reason(ReasonBound, t.overBound, t.s.o.MaxChars))
	}
	if t.cut > 0 {
		parts = append(parts, fmt.Sprintf("%d pages were longer than %d characters and only their beginning was kept", t.cut, MaxPageChars))
		why = append(why, reason(ReasonCut, t.cut, MaxPageChars))
	}
	if t.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d pages or files had no text that could be read", t.unreadable))
		why = append(why, reason(ReasonUnreadable, t.unreadable))
	}
	if t.duplicate > 0 {
		parts = append(parts, fmt.Sprintf("%d pages repeated another page's text", t.duplicate))
		why = append(why, reason(ReasonDuplicate, t.duplicate))
	}
	if res.TimedOut {
		parts = append(parts, "the crawl reached its time limit before it had seen the whole site")
		why = append(why, reason(ReasonCrawlTime))
	}
	return strings.Join(parts, "; "), why
}

// nothing says why a sync found no page to take in, in words and as
// reasons: that nothing was found, then what the note would say.
func (t *taking) nothing(res crawler.Result) (string, []domain.Reason) {
	msg, first := "no page with text was found", reason(ReasonEmpty)
	if res.Fetched > 0 {
		msg += fmt.Sprintf(" (%d fetched)", res.Fetched)
		first = reason(ReasonEmptyFetched, res.Fetched)
	}
	n, why := t.note(res)
	if n != "" {
		msg += ": " + n
	}
	return msg, append([]domain.Reason{first}, why...)
}
