package assets

import (
	"bytes"
	"compress/gzip"
	"math/bits"
	"sync"

	"github.com/andybalholm/brotli"
)

// forms are the compressed forms of one body; nil where compressing does
// not make it smaller (tiny or incompressible bodies), since the client's
// decoding would then be wasted.
type forms struct{ gz, br []byte }

// cache keeps each distinct body's forms for the life of the process.
// Brotli at its best quality costs tens of milliseconds per file, and a
// process builds its Files more than once (every server.New, in tests many
// times); the set of bodies is the embedded files, so it stays small.
var cache sync.Map // [sha256.Size]byte → forms

func compressed(sum [32]byte, body []byte) forms {
	if c, ok := cache.Load(sum); ok {
		return c.(forms)
	}
	c := forms{gz: gzipBytes(body), br: brotliBytes(body)}
	cache.Store(sum, c)
	return c
}

func gzipBytes(body []byte) []byte {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err == nil {
		_, err = zw.Write(body)
	}
	if err == nil {
		err = zw.Close()
	}
	// Writing to a bytes.Buffer cannot fail.
	if err != nil || buf.Len() >= len(body) {
		return nil
	}
	return buf.Bytes()
}

func brotliBytes(body []byte) []byte {
	var buf bytes.Buffer
	// A window just big enough for the body compresses as well as the
	// largest and is several times faster to set up for small files.
	win := min(max(bits.Len(uint(len(body))), 10), 24)
	bw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: win})
	_, err := bw.Write(body)
	if err == nil {
		err = bw.Close()
	}
	if err != nil || buf.Len() >= len(body) {
		return nil
	}
	return buf.Bytes()
}
