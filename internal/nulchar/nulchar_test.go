package nulchar

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestInJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		json string
		nul  bool
	}{
		{`{"a":"b"}`, false},
		{`{"a":"\u0000"}`, true},
		{`{"a":"x\u0000y"}`, true},
		{`{"\u0000":1}`, true},
		{`{"a":"\\u0000"}`, false},   // an escaped backslash, then the text u0000
		{`{"a":"\\\u0000"}`, true},   // an escaped backslash, then the escape
		{`{"a":"\\\\u0000"}`, false}, // two escaped backslashes
		{`{"a":"\u00001"}`, true},
		{`{"a":"\u0001"}`, false},
		{`{"a":"\u000"}`, false},
		{`{"a":"\u00a0"}`, false},
		{`{"a":"\u2000"}`, false},
		{`{"a":"u0000"}`, false},
		{`{"a":"\"u0000"}`, false},
		{`{"a":"\\"}` + ` "u0000"`, false},
		{`{"a":"\U0000"}`, false}, // not an escape JSON has
		{"{\"a\":\"\x00\"}", true},
	} {
		if got := InJSON([]byte(tt.json)); got != tt.nul {
			t.Errorf("InJSON(%s) = %v, want %v", tt.json, got, tt.nul)
		}
		// What a decoder makes of it agrees, where it is valid JSON.
		var v map[string]any
		if json.Unmarshal([]byte(tt.json), &v) == nil {
			decoded := false
			for k, x := range v {
				s, _ := x.(string)
				decoded = decoded || In(k) || In(s)
			}
			if decoded != tt.nul {
				t.Errorf("%s: the decoder finds a NUL: %v", tt.json, decoded)
			}
		}
	}
}

// Fed one byte at a time, the scanner finds what it finds in one piece.
func TestScannerAcrossPieces(t *testing.T) {
	t.Parallel()
	for _, js := range []string{`{"a":"x\u0000"}`, `{"a":"\\u0000"}`, `{"a":"\\\u0000"}`} {
		var s Scanner
		for i := range len(js) {
			s.Write([]byte{js[i]})
		}
		if s.Found() != InJSON([]byte(js)) {
			t.Errorf("%s: byte by byte %v, at once %v", js, s.Found(), InJSON([]byte(js)))
		}
	}
}

func TestIn(t *testing.T) {
	t.Parallel()
	if In("abc") || !In("a\x00c") {
		t.Fatal("In")
	}
}

// Random strings of the characters that matter, as JSON: the scanner, fed
// whole or in random pieces, agrees with what a decoder makes of them.
func TestScannerAgreesWithTheDecoder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{`\\`, `\u0000`, `\u0001`, `u`, `0`, `\"`, `x`, `\n`}
	for range 5000 {
		var b strings.Builder
		b.WriteString(`{"a":"`)
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteString(`"}`)
		js := b.String()
		var v map[string]string
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		want := In(v["a"])
		var s Scanner
		for rest := []byte(js); len(rest) > 0; {
			n := 1 + rng.IntN(len(rest))
			s.Write(rest[:n])
			rest = rest[n:]
		}
		if InJSON([]byte(js)) != want || s.Found() != want {
			t.Fatalf("%s: whole %v, in pieces %v, decoder %v", js, InJSON([]byte(js)), s.Found(), want)
		}
	}
}
