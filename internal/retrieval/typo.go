package retrieval

import "slices"

// maxEdits is how many typos a word of n letters may have and still be
// recognised: none below four letters, one up to seven, two from eight.
// Four-letter words are one edit apart from too many others ("cars" is not a
// typo of "card"), so for them only a swap of two neighbours counts (see
// shortTypo).
func maxEdits(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// fuzzy finds the vocabulary words within maxEdits (Damerau-Levenshtein,
// adjacent transpositions counting as one edit) of a misspelt word. It keeps,
// sorted, every string that deleting up to maxEdits letters from a
// vocabulary word gives (SymSpell's deletion neighbourhood): two words within
// d edits share such a string, so a lookup hashes the query's own deletions
// and checks only the few words that share one. Each key packs a 40-bit hash
// of the string above the word's 24-bit id, so plain integer sorting builds
// the table; hash collisions are harmless, as every candidate's real
// distance is checked.
type fuzzy struct {
	words [][]rune
	keys  []uint64
}

const idBits = 24 // up to 16M words: far beyond any knowledge base

func newFuzzy(words []string) *fuzzy {
	f := &fuzzy{words: make([][]rune, len(words))}
	n := 0
	for id, w := range words {
		rs := []rune(w)
		f.words[id] = rs
		n += deletionCount(len(rs), maxEdits(len(rs)))
	}
	f.keys = make([]uint64, 0, n)
	for id, rs := range f.words {
		if id >= 1<<idBits {
			break
		}
		forDeletions(rs, maxEdits(len(rs)), func(h uint64) {
			f.keys = append(f.keys, h>>idBits<<idBits|uint64(id))
		})
	}
	slices.Sort(f.keys)
	return f
}

// deletionCount is how many strings forDeletions makes for a word of n
// letters.
func deletionCount(n, edits int) int {
	switch edits {
	case 0:
		return 1
	case 1:
		return 1 + n
	}
	return 1 + n + n*(n-1)/2
}

// lookup returns the closest vocabulary word to q, preferring among equally
// close ones the word better says is better. It is meant for words not in
// the vocabulary (it never returns q itself, only its neighbours).
func (f *fuzzy) lookup(q string, better func(a, b int32) bool) (int32, bool) {
	qr := []rune(q)
	edits := maxEdits(len(qr))
	if edits == 0 || len(f.keys) == 0 {
		return 0, false
	}
	best, bestDist := int32(-1), edits+1
	var seen []int32
	forDeletions(qr, edits, func(h uint64) {
		prefix := h >> idBits << idBits
		i, _ := slices.BinarySearch(f.keys, prefix)
		for ; i < len(f.keys) && f.keys[i]>>idBits<<idBits == prefix; i++ {
			id := int32(f.keys[i] & (1<<idBits - 1))
			if slices.Contains(seen, id) {
				continue
			}
			seen = append(seen, id)
			w := f.words[id]
			allowed := maxEdits(min(len(qr), len(w)))
			if abs(len(qr)-len(w)) > allowed {
				continue
			}
			d := osaDistance(qr, w, allowed)
			if d == 0 || d > allowed || (min(len(qr), len(w)) < 5 && !isSwap(qr, w)) {
				continue
			}
			if d < bestDist || (d == bestDist && better(id, best)) {
				best, bestDist = id, d
			}
		}
	})
	return best, best >= 0
}

// forDeletions calls fn with the hash of rs and of every string made by
// deleting up to edits (at most 2) of its letters. Hashing with positions
// skipped avoids building the strings.
func forDeletions(rs []rune, edits int, fn func(uint64)) {
	fn(hashSkipping(rs, -1, -1))
	if edits < 1 {
		return
	}
	for i := range rs {
		fn(hashSkipping(rs, i, -1))
		if edits < 2 {
			continue
		}
		for j := i + 1; j < len(rs); j++ {
			fn(hashSkipping(rs, i, j))
		}
	}
}

// hashSkipping is FNV-1a over the runes of rs except those at i and j.
func hashSkipping(rs []rune, i, j int) uint64 {
	h := uint64(14695981039346656037)
	for k, r := range rs {
		if k == i || k == j {
			continue
		}
		h ^= uint64(r)
		h *= 1099511628211
	}
	return h
}

// osaDistance is the optimal string alignment distance of a and b (edits:
// insert, delete, substitute, swap two adjacent letters). It gives up with
// limit+1 once the distance must exceed limit.
func osaDistance(a, b []rune, limit int) int {
	// The three rows live on the stack for words of up to maxTokenRunes
	// letters: this runs for many candidate words on every visitor message.
	var buf [3 * (maxTokenRunes + 1)]int
	n := len(b) + 1
	rows := buf[:]
	if 3*n > len(buf) {
		rows = make([]int, 3*n)
	}
	prev2, prev, cur := rows[:n], rows[n:2*n], rows[2*n:3*n]
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		// Later cells come from this row (+0 or more) or, by a swap, from
		// the previous one (+1): once both are past the limit, so is the end.
		if rowMin > limit && prevMin+1 > limit {
			return limit + 1
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// stopTypos finds stop words within maxEdits of a word, per stemmer
// language: "mcuh" is "much" mistyped, and should no more count against a
// match than "much" does.
var stopTypos = func() map[string]*fuzzy {
	m := make(map[string]*fuzzy)
	for lang, set := range stopWords {
		words := make([]string, 0, len(set))
		for w := range set {
			words = append(words, w)
		}
		slices.Sort(words)
		m[lang] = newFuzzy(words)
	}
	return m
}()

func isStopTypo(t term) bool {
	f := stopTypos[t.lang]
	if f == nil {
		return false
	}
	_, ok := f.lookup(t.word, func(a, b int32) bool { return a < b })
	return ok
}

// isSwap reports whether b is a with two neighbouring letters swapped
// ("tiem", "time").
func isSwap(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
}
