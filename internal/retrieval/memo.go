package retrieval

import "sync"

// maxMemoWords bounds a wordMemo. The words visitors use are few and
// repeat; once this many distinct ones were seen (typos and rare words
// included), the memo starts again empty rather than keep early guesses
// forever.
const maxMemoWords = 4096

// wordMemo remembers how an index resolves query words. An index never
// changes once built (a new knowledge version builds a new one), so a
// remembered answer stays exact. Answers are shared between searches,
// which only read them.
type wordMemo struct {
	mu    sync.RWMutex
	words map[word]resolved
}

func (m *wordMemo) get(w word) (resolved, bool) {
	m.mu.RLock()
	r, ok := m.words[w]
	m.mu.RUnlock()
	return r, ok
}

func (m *wordMemo) put(w word, r resolved) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.words == nil || len(m.words) >= maxMemoWords {
		m.words = make(map[word]resolved)
	}
	m.words[w] = r
}
