package nulchar

import (
	"encoding/json"
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
