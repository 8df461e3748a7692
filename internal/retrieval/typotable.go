package retrieval

import (
	"maps"
	"slices"
	"unicode/utf8"
)

// maxTypoKeys bounds the keys of one typo table (8 bytes each: 16 MB). A
// word of n letters has about n²/2 keys once it may have two typos, and the
// tables are most of an index's build time and memory: 2,000,000 characters
// of real prose or documentation make 100,000 to 800,000 keys per table,
// but text made of long made-up words could make 20 keys a character and
// gigabytes in all. Past the bound, typo lookup knows the most frequent
// words (and stems) only; exact matching knows every word still.
const maxTypoKeys = 2_000_000

// typoTable is the typo table of words for an index: newFuzzy(words) within
// limit keys (maxTypoKeys). ids maps each word to its id; count[id] is how often it
// occurs, which decides the words that have a place when not all fit. prev, when not nil, is the table of
// an earlier vocabulary prevWords (the previous build's): the keys of
// words both have are carried over with their ids renumbered, only new
// words are hashed, and a merge takes the place of sorting every key.
func typoTable(words []string, ids map[string]int32, count []int32, limit int, prev *fuzzy, prevWords []string) *fuzzy {
	f := &fuzzy{words: make([][]rune, len(words))}
	keep := tableWords(words, count, limit)
	hashed := make([]bool, len(words)) // keys carried over from prev
	var carried []uint64
	if prev != nil && len(prev.words) == len(prevWords) {
		renumber := make([]int32, len(prevWords))
		for old, w := range prevWords {
			renumber[old] = -1
			if id, ok := ids[w]; ok && id < 1<<idBits && id < int32(len(words)) && words[id] == w {
				f.words[id] = prev.words[old]
				if keep == nil || keep[id] {
					renumber[old] = id
				}
			}
		}
		carried = make([]uint64, 0, len(prev.keys))
		for _, k := range prev.keys {
			if id := renumber[k&(1<<idBits-1)]; id >= 0 {
				carried = append(carried, k>>idBits<<idBits|uint64(id))
				hashed[id] = true
			}
		}
	}
	var fresh []uint64
	for id, w := range words {
		if f.words[id] == nil {
			f.words[id] = []rune(w)
		}
		if hashed[id] || id >= 1<<idBits || (keep != nil && !keep[id]) {
			continue
		}
		forDeletions(f.words[id], maxEdits(len(f.words[id])), func(h uint64) {
			fresh = append(fresh, h>>idBits<<idBits|uint64(id))
		})
	}
	sortKeys(fresh)
	f.keys = mergeKeys(carried, fresh)
	return f
}

// sortKeys orders typo-table keys by their hash (the bits above idBits),
// which is all lookup needs: keys of one hash are all checked, in any
// order. A radix sort over the hash's five bytes does it in five passes
// over the keys, a third of the time comparisons take (typo tables are
// most of an index's build).
func sortKeys(keys []uint64) {
	if len(keys) < 1024 {
		slices.Sort(keys)
		return
	}
	src, dst := keys, make([]uint64, len(keys))
	for shift := idBits; shift < 64; shift += 8 {
		var at [256]int
		for _, k := range src {
			at[byte(k>>shift)]++
		}
		n := 0
		for i, c := range at {
			at[i], n = n, n+c
		}
		for _, k := range src {
			b := byte(k >> shift)
			dst[at[b]] = k
			at[b]++
		}
		src, dst = dst, src
	}
	copy(keys, src) // five passes: the result is in the other buffer
}

// tableWords returns which words have a place in a typo table: nil when
// all fit within limit keys, else the words in the order of count (most
// first; equal counts in id order, which is the order words first occur),
// up to the first one that does not fit.
func tableWords(words []string, count []int32, limit int) []bool {
	size := make([]int, len(words))
	total := 0
	for id, w := range words {
		n := utf8.RuneCountInString(w)
		size[id] = deletionCount(n, maxEdits(n))
		total += size[id]
	}
	if total <= limit {
		return nil
	}
	// The keys per count, to find the count where the table fills up
	// without sorting every word.
	byCount := make(map[int32]int)
	for id, c := range count[:len(words)] {
		byCount[c] += size[id]
	}
	counts := slices.Sorted(maps.Keys(byCount))
	last, left := int32(0), limit
	for i := len(counts) - 1; i >= 0; i-- {
		last = counts[i]
		if byCount[last] > left {
			break
		}
		left -= byCount[last]
	}
	keep := make([]bool, len(words))
	for id, c := range count[:len(words)] {
		switch {
		case c > last:
			keep[id] = true
		case c == last && left >= size[id]:
			keep[id] = true
			left -= size[id]
		case c == last:
			left = -1 // the first that does not fit ends the table
		}
	}
	return keep
}

// mergeKeys merges two key lists sorted by their hash (the bits above
// idBits). Keys that share a hash may come in any order: lookup checks
// every one of them.
func mergeKeys(a, b []uint64) []uint64 {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i]>>idBits <= b[j]>>idBits {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
