package extract

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"parley/internal/testsvc"
)

// The bound: a 100-page PDF in under 2 s. long-100.pdf is printed
// by Chromium (testdata/make-fixtures.sh): 100 pages of Romanian and
// Russian text in CID fonts.
func BenchmarkExtractPDF100Pages(b *testing.B) {
	data := fixture(b, "long-100.pdf")
	b.ReportAllocs()
	defer testsvc.CPU(b)()
	for b.Loop() {
		doc, err := Extract(data, "")
		if err != nil || !strings.Contains(doc.Text, "Capitolul 100") {
			b.Fatalf("%v\n%.200s", err, doc.Text)
		}
	}
}

// BenchmarkExtract10MiB extracts a 10 MiB file of each kind; B/op (all
// that was allocated, an upper bound on the peak) against the file's size
// is the memory bound (~10×).
func BenchmarkExtract10MiB(b *testing.B) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"text", bigMarkdown()},
		{"html", bigHTML()},
		{"pdf", bigPDF()},
		{"docx", bigDOCX(b)},
	} {
		b.Run(c.name, func(b *testing.B) {
			if len(c.data) > MaxBytes || len(c.data) < MaxBytes*9/10 {
				b.Fatalf("the input is %d bytes", len(c.data))
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			defer testsvc.CPU(b)()
			peak := uint64(0)
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					if _, err := Extract(c.data, ""); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(peak)/float64(len(c.data)), "peak-heap/size")
		})
	}
}

// peakHeap runs f and returns the most heap its objects took above what
// was live before, sampled every half millisecond: the input's own bytes
// are not counted, everything f allocated and still held is.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		peak := base
		t := time.NewTicker(500 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				result <- max(peak, read()) - base
				return
			case <-t.C:
				peak = max(peak, read())
			}
		}
	}()
	f()
	close(done)
	return <-result
}

const sentence = "Brutăria livrează pâine proaspătă în fiecare dimineață, iar comenzile plasate înainte de prânz ajung în aceeași zi. "

func bigMarkdown() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < MaxBytes-4096; i++ {
		fmt.Fprintf(&b, "## Secțiunea %d\n\n%s\n\n", i, strings.Repeat(sentence, 8))
	}
	return b.Bytes()
}

func bigHTML() []byte {
	var b bytes.Buffer
	b.WriteString(`<!doctype html><html lang="ro"><head><title>Manual</title></head><body><nav><a href="/">Acasă</a></nav><main><article><h1>Manual</h1>`)
	for i := 0; b.Len() < MaxBytes-4096; i++ {
		fmt.Fprintf(&b, "<h2>Secțiunea %d</h2><p>%s</p><ul><li>Livrare în oraș.</li><li>Ridicare din magazin.</li></ul>\n", i, strings.Repeat(sentence, 8))
	}
	b.WriteString(`</article></main><footer>© 2025</footer></body></html>`)
	return b.Bytes()
}

// bigPDF writes a PDF of ~10 MiB of uncompressed text: the most text a
// 10 MiB PDF can hold, so the most work.
func bigPDF() []byte {
	var pages []string
	size := 0
	for size < MaxBytes-64<<10 {
		var c strings.Builder
		c.WriteString("BT /F1 10 Tf 12 TL 50 800 Td\n")
		for l := range 60 {
			fmt.Fprintf(&c, "(Line %d of page %d: the bakery delivers fresh bread every morning, orders before noon arrive the same day.) Tj T*\n", l, len(pages)+1)
		}
		c.WriteString("ET")
		pages = append(pages, c.String())
		size += c.Len() + 200
	}
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", len(pages), strings.Join(kids, " ")))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, content := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+1, content))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// bigDOCX is a 10 MiB DOCX as they come: a picture (random bytes, which do
// not compress) and a few hundred pages of text.
func bigDOCX(b *testing.B) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	fmt.Fprint(w, `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	for i := range 3000 {
		fmt.Fprintf(w, `<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Secțiunea %d</w:t></w:r></w:p><w:p><w:r><w:t>%s</w:t></w:r></w:p>`, i, strings.Repeat(sentence, 4))
	}
	fmt.Fprint(w, `</w:body></w:document>`)
	pic := make([]byte, 9<<20)
	rand.Read(pic)
	pw, _ := zw.CreateHeader(&zip.FileHeader{Name: "word/media/image1.png", Method: zip.Store})
	pw.Write(pic)
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
