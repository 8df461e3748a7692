package questions

// Visitors misspell ("delivry", "pasword", "доставкa"), and a misspelt
// question is the same question. A stem of minTypoRunes letters or more
// matches a stem one edit away (a letter changed, added, dropped, or two
// neighbours swapped) at typoMatch, as a typo does in a search. Shorter
// stems are left alone: one edit turns "cost" into "cast" and "ship" into
// "shop".
const (
	minTypoRunes = 6
	typoMatch    = 0.8
)

// typoKeys are the keys under which stems one edit apart meet: the stem and
// each of its one-letter deletions, marked apart from stems and relative
// keys. Two stems one edit apart share one: a change or a swap deletes to
// the same string in both, an added letter deletes to the other stem.
func typoKeys(stem string) []string {
	rs := []rune(stem)
	if len(rs) < minTypoRunes {
		return nil
	}
	keys := []string{"\x00" + stem}
	for i := range rs {
		keys = append(keys, "\x00"+string(rs[:i])+string(rs[i+1:]))
	}
	return keys
}

// oneEdit reports whether a and b, both of minTypoRunes letters or more,
// differ by exactly one edit: a letter changed, added or dropped, or two
// neighbouring letters swapped.
func oneEdit(a, b []rune) bool {
	if len(a) < minTypoRunes || len(b) < minTypoRunes {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch len(b) - len(a) {
	case 0:
		if i == len(a) {
			return false // the same
		}
		if string(a[i+1:]) == string(b[i+1:]) {
			return true // changed
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && string(a[i+2:]) == string(b[i+2:]) // swapped
	case 1:
		return string(a[i:]) == string(b[i+1:]) // added
	}
	return false
}
