package favicon

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"os"
	"testing"
)

// The committed web/favicon.ico is what the code draws now, and a valid
// ICO: a header, one entry per size, each pointing at a PNG of that size.
func TestFaviconIsCurrentAndValid(t *testing.T) {
	t.Parallel()
	want, err := ICO()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("web/favicon.ico is stale: run go generate ./web")
	}
	le := binary.LittleEndian
	if le.Uint16(got[0:]) != 0 || le.Uint16(got[2:]) != 1 || int(le.Uint16(got[4:])) != len(Sizes) {
		t.Fatalf("ICO header % x", got[:6])
	}
	for i, n := range Sizes {
		e := got[6+16*i:]
		size, off := le.Uint32(e[8:]), le.Uint32(e[12:])
		img, err := png.Decode(bytes.NewReader(got[off : off+size]))
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if int(e[0]) != n || img.Bounds().Dx() != n || img.Bounds().Dy() != n {
			t.Fatalf("entry %d: %dx%d, want %d", i, img.Bounds().Dx(), img.Bounds().Dy(), n)
		}
	}
}
