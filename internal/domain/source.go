package domain

import "time"

// A Source is somewhere an agent's knowledge comes from besides what the
// owner types: today a website, crawled and kept in sync. Its pages are
// stored as SourcePages and answer like documents, citing their URL.
type Source struct {
	ID        string // "src_…"
	AccountID string
	AgentID   string
	Kind      SourceKind
	URL       string        // where the crawl starts
	MaxPages  int           // DefaultMaxPages when not given, at most MaxSourcePages
	SyncEvery time.Duration // how often it re-syncs; 0: only on demand
	Status    SourceStatus
	// Pages counts the pages and documents whose text is in the
	// knowledge; while a sync runs, the pages taken in so far.
	Pages int
	Error string // why the last sync failed, in plain words; "" otherwise
	// Note says, in plain words, what the last sync that ended ready left
	// out (pages past the agent's bound on source text, documents that
	// could not be read); "" when it took in everything it found.
	Note string
	// ErrorReasons and NoteReasons say what Error and Note say, as codes
	// and their values, for readers that word them in the owner's
	// language (the dashboard). Nil when there is nothing to say, for a
	// row from before the codes were kept, or for an error that has no
	// code (a database failure): the English text is all there is then.
	ErrorReasons []Reason
	NoteReasons  []Reason
	Chars        int       // characters of its pages' texts in the knowledge, all pages together
	SyncedAt     time.Time // the last sync that ended ready; zero: never
	// NextSyncAt is when the schedule syncs it next; zero: not scheduled.
	NextSyncAt time.Time
	CreatedAt  time.Time
}

// A Reason is one part of a sync's outcome (why it failed, what it left
// out) as a stable code and its values: the crawler's codes
// (crawler.Code…) and the sources service's (sources.Reasons lists both,
// with how each value is shown).
type Reason struct {
	Code string   `json:"code"`
	Args []string `json:"args,omitempty"`
}

// SourceKind is what a source is. Only websites for now.
type SourceKind string

const SourceWebsite SourceKind = "website"

// SourceStatus is where a source's sync stands.
type SourceStatus string

const (
	SourceQueued  SourceStatus = "queued"  // a sync waits on the job queue
	SourceSyncing SourceStatus = "syncing" // a sync runs
	SourceReady   SourceStatus = "ready"   // its pages answer
	SourceFailed  SourceStatus = "failed"  // the last sync failed (Error says why); earlier pages, if any, still answer
)

// Bounds and defaults of website sources.
const (
	DefaultMaxPages  = 200
	MaxSourcePages   = 2000
	DefaultSyncEvery = 24 * time.Hour
	// DefaultSourcesMaxChars is the page text an agent's sources may hold,
	// all together (PARLEY_SOURCES_MAX_CHARS); docs/agent.md says why.
	DefaultSourcesMaxChars = 1_000_000
)

// SourcePage is one page or document a sync took in. Its text is
// Markdown-like (lines starting with "#" open sections), so it is split into
// passages like a document. ID is stable across syncs for the same URL
// (derived from the source and the URL), so the index builder recognises
// unchanged pages and does not analyse them again.
type SourcePage struct {
	ID       string
	SourceID string
	AgentID  string
	URL      string
	Title    string
	Text     string
	Lang     string // "" unless the page says (html lang) and it is one of i18n.Languages
}

// Entry is the page as a knowledge entry for the index: a document that
// carries its URL, so an answer from it can cite the page.
func (p SourcePage) Entry() KnowledgeEntry {
	return KnowledgeEntry{ID: p.ID, Kind: KindDocument, Title: p.Title, Text: p.Text, Lang: p.Lang, URL: p.URL}
}

// SourceRef is what an answer cites: a page (title and URL) or an uploaded
// file or document (title only). The chat's 200 body lists them as
// "sources".
type SourceRef struct {
	Title string `json:"title"`
	URL   string `json:"url,omitempty"`
}
