package retrieval

// The units of an index, for what ranks them by other means than words
// (hybrid retrieval's vector similarity, docs/agent.md): each is embedded
// once, and a search in a language considers the units it would see.

// Units is how many units the index has; they are numbered from 0.
func (ix *Index) Units() int { return len(ix.units) }

// Unit returns unit i as a hit with no scores.
func (ix *Index) Unit(i int) Hit {
	u := ix.units[i]
	return Hit{Entry: ix.entries[u.entry], EntryIndex: u.entry, Question: u.question, Heading: u.heading, Passage: u.text, Unit: i}
}

// Visible returns the units a search in lang sees, as Search chooses them:
// those in lang and those in no language, or for a language no entry has,
// the untagged ones. The slice is the index's own: do not change it.
func (ix *Index) Visible(lang string) []int32 {
	li := ix.langIndex(lang)
	if li == nil {
		return nil
	}
	return li.units
}
