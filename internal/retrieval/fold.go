package retrieval

import (
	"strings"
	"unicode"
)

// foldTable maps accented lower-case letters to the letter visitors type
// when they leave the accent out. Romanian has two spellings of ș and ț
// (comma below, and the older cedilla); both fold to s and t. The stdlib has
// no Unicode decomposition, so the Latin letters a European visitor is likely
// to use are listed here; combining marks (decomposed input) are dropped in
// foldRune.
var foldTable = func() map[rune]rune {
	m := make(map[rune]rune)
	for base, accented := range map[rune]string{
		'a': "àáâãäåāăą",
		'c': "çćĉċč",
		'd': "ďđ",
		'e': "èéêëēĕėęě",
		'g': "ĝğġģ",
		'h': "ĥħ",
		'i': "ìíîïĩīĭįı",
		'j': "ĵ",
		'k': "ķ",
		'l': "ĺļľŀł",
		'n': "ñńņňŉ",
		'o': "òóôõöøōŏő",
		'r': "ŕŗř",
		's': "śŝşšș",
		't': "ţťŧț",
		'u': "ùúûüũūŭůűų",
		'w': "ŵ",
		'y': "ýÿŷ",
		'z': "źżž",
		'е': "ё", // Russian ё is usually written as е
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()

// foldRune lower-cases r and removes its accent. It returns -1 for a
// combining mark, which carries only an accent.
func foldRune(r rune) rune {
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	if unicode.Is(unicode.Mn, r) {
		return -1
	}
	r = unicode.ToLower(r)
	if b, ok := foldTable[r]; ok {
		return b
	}
	return r
}

// Fold lower-cases s and removes diacritics, so "Livrării" and "livrarii",
// "Ещё" and "еще" compare equal.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if f := foldRune(r); f >= 0 {
			b.WriteRune(f)
		}
	}
	return b.String()
}
