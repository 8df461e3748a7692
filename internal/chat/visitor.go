package chat

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/store"
)

// Limits of what the widget tells about the visitor's browser (issue 19,
// the desk's visitor details). Values past them, or not of their form,
// are dropped rather than refusing the chat: they are hints for the
// operator, and a chat must not fail over an odd browser.
const (
	MaxUserAgentChars = 512 // longer User-Agent headers are cut
	MaxLanguageChars  = 35  // a BCP 47 tag
	MaxTimeZoneChars  = 64  // an IANA zone name
	MaxReferrerChars  = MaxPageURLChars
)

// VisitorInfo is what the widget's init says about the browser.
type VisitorInfo struct {
	UserAgent string // the request's User-Agent header
	Language  string // navigator.language
	TimeZone  string // Intl's resolved time zone
	Referrer  string // document.referrer, without its query
}

// clean keeps the values of v that have the form they should.
func (v VisitorInfo) clean() store.VisitorContext {
	c := store.VisitorContext{
		UserAgent: shorten(v.UserAgent, MaxUserAgentChars),
		Language:  keepIf(v.Language, MaxLanguageChars, "-_"),
		TimeZone:  keepIf(v.TimeZone, MaxTimeZoneChars, "/_+-"),
	}
	if len(v.Referrer) <= MaxReferrerChars && (strings.HasPrefix(v.Referrer, "https://") || strings.HasPrefix(v.Referrer, "http://")) {
		c.Referrer = v.Referrer
	}
	if store.CheckText(c.UserAgent, c.Referrer) != nil {
		c.UserAgent, c.Referrer = "", ""
	}
	return c
}

// keepIf is s when it is at most most ASCII letters, digits and extra.
func keepIf(s string, most int, extra string) string {
	if len(s) > most {
		return ""
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(extra, r)) {
			return ""
		}
	}
	return s
}

func shorten(s string, most int) string {
	if !utf8.ValidString(s) {
		return ""
	}
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	return string([]rune(s)[:most])
}

// checkPageURL is the page_url rule of init and chat.
func checkPageURL(u string) error {
	if utf8.RuneCountInString(u) > MaxPageURLChars {
		return domain.Invalid("page_url is longer than 2048 characters")
	}
	return nil
}

// recordVisitor stores what the widget told at init and the first page.
// A failure is logged, not returned: the conversation exists and the
// visitor's chat matters more than the operator's hints.
func (s *Service) recordVisitor(ctx context.Context, conv domain.Conversation, v VisitorInfo, page string) {
	if c := v.clean(); c.UserAgent != "" || c.Language != "" || c.TimeZone != "" || c.Referrer != "" {
		if err := s.store.SetVisitorContext(ctx, conv.ID, c); err != nil {
			s.log.Warn("storing the visitor's context", "conversation", conv.ID, "err", err)
		}
	}
	s.recordPage(ctx, conv.ID, page, s.now())
}

func (s *Service) recordPage(ctx context.Context, conversationID, page string, at time.Time) {
	if page == "" {
		return
	}
	if err := s.store.RecordPage(ctx, conversationID, page, at); err != nil {
		s.log.Warn("storing the visitor's page", "conversation", conversationID, "err", err)
	}
}
