package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/nulchar"
	"parley/internal/secret"
)

// What the Sources methods take and return, and the rules both stores
// apply to sources, written once (see rules.go).

// NewSource is a source to create. The service (package sources) has
// checked the URL and the bounds; Build checks only what the store must.
type NewSource struct {
	AccountID string
	AgentID   string
	Kind      domain.SourceKind
	URL       string
	MaxPages  int
	SyncEvery time.Duration
}

// Build makes the source as it is created at: queued (its first sync is
// enqueued right after), due again SyncEvery after it.
func (n NewSource) Build(at time.Time) (domain.Source, error) {
	if err := CheckText(n.AccountID, n.AgentID, string(n.Kind), n.URL); err != nil {
		return domain.Source{}, err
	}
	at = StoredTime(at)
	return domain.Source{
		ID: secret.ID("src_", 10), AccountID: n.AccountID, AgentID: n.AgentID,
		Kind: n.Kind, URL: n.URL, MaxPages: n.MaxPages, SyncEvery: n.SyncEvery,
		Status: domain.SourceQueued, NextSyncAt: NextSync(at, n.SyncEvery), CreatedAt: at,
	}, nil
}

// SourceSync is how a sync that took its pages in ended.
type SourceSync struct {
	At          time.Time       // when it ended: SyncedAt, and NextSyncAt counts from it
	Note        string          // what it left out, in plain words (domain.Source.Note)
	NoteReasons []domain.Reason // the same as codes (domain.Source.NoteReasons)
}

// SourceFailure is how a sync that failed ended.
type SourceFailure struct {
	At      time.Time       // when it ended: NextSyncAt counts from it
	Error   string          // why, in plain words (domain.Source.Error)
	Reasons []domain.Reason // the same as codes (domain.Source.ErrorReasons)
}

// ReasonsJSON is rs as the stores keep it: a JSON array, [] for none.
// Encoding makes any text storable (a NUL is escaped, broken UTF-8
// replaced), so values from a site need no cleaning.
func ReasonsJSON(rs []domain.Reason) string {
	if len(rs) == 0 {
		return "[]"
	}
	b, err := json.Marshal(rs)
	if err != nil {
		return "[]" // strings only: cannot happen
	}
	return string(b)
}

// ParseReasons reads what ReasonsJSON wrote; nil for none. Text that is
// not such an array (the columns' checks allow any array) reads as none:
// the English words are shown then.
func ParseReasons(s string) []domain.Reason {
	var rs []domain.Reason
	if json.Unmarshal([]byte(s), &rs) != nil || len(rs) == 0 {
		return nil
	}
	return rs
}

// SourcePageInfo is a page as a source's page list shows it: without its
// text, which may be large.
type SourcePageInfo struct {
	ID    string
	URL   string
	Title string
	Chars int // characters of its text
}

// NextSync is when a source that syncs every every, synced (or queued, or
// failed) at at, is due again; zero (never) when every is 0. A failed sync
// waits a whole period too: retrying a broken site at once, every tick of
// the schedule, would only load it.
func NextSync(at time.Time, every time.Duration) time.Time {
	if every <= 0 {
		return time.Time{}
	}
	return StoredTime(at.Add(every))
}

// PageID is the id of the page at url in source sourceID: the same on every
// sync, so the knowledge index recognises a page it analysed before (it
// knows entries by id and content) and analyses only what changed.
func PageID(sourceID, url string) string {
	h := sha256.Sum256([]byte(sourceID + "\x00" + url))
	return "pg_" + hex.EncodeToString(h[:12])
}

// BuildPages is pages as ReplaceSourcePages stores them for src: each with
// its stable id, src's ids, text a database can keep (web pages are not the
// owner's input, so a NUL or a broken UTF-8 sequence is dropped rather than
// refused) and its size; a URL met again is dropped, the first kept.
func BuildPages(src domain.Source, pages []domain.SourcePage) ([]domain.SourcePage, []int) {
	out := make([]domain.SourcePage, 0, len(pages))
	chars := make([]int, 0, len(pages))
	seen := make(map[string]bool, len(pages))
	for _, p := range pages {
		p.URL, p.Title, p.Text, p.Lang = clean(p.URL), clean(p.Title), clean(p.Text), clean(p.Lang)
		if seen[p.URL] {
			continue
		}
		seen[p.URL] = true
		p.ID, p.SourceID, p.AgentID = PageID(src.ID, p.URL), src.ID, src.AgentID
		out = append(out, p)
		chars = append(chars, utf8.RuneCountInString(p.Text))
	}
	return out, chars
}

// clean is s without NUL characters and with invalid UTF-8 replaced.
func clean(s string) string {
	if nulchar.In(s) {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
