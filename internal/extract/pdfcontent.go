package extract

import (
	"math"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// The library parses a PDF's objects and content streams well, but its
// own text walk (Page.Content) does not advance over glyphs of Type0/CID
// fonts (browsers' fonts), decodes a stray glyph after every TJ, and
// prefers a named encoding over the font's ToUnicode map. So this file
// runs the text operators itself, on the library's parser.

// A glyph is one character code drawn on a page.
type glyph struct {
	s       string  // its text
	x, y, w float64 // where it starts, and its advance, in user space
	size    float64 // the font size in user space
}

// affine is a PDF matrix [a b c d e f].
type affine [6]float64

var identity = affine{1, 0, 0, 1, 0, 0}

// mul returns m×n (m applied first).
func (m affine) mul(n affine) affine {
	return affine{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(tx, ty float64) affine { return affine{1, 0, 0, 1, tx, ty} }

type textState struct {
	ctm                 affine
	tc, tw, th, tl, tfs float64
	rise                float64
	font                *pdfFont
}

// pageGlyphs runs a page's content stream and hands each glyph drawn to
// emit, in drawing order (a 10 MiB PDF has millions: they are not kept).
func pageGlyphs(page pdf.Page, emit func(glyph)) {
	w := &walker{emit: emit}
	w.run(page.V.Key("Contents"), page.Resources(), identity, 0)
}

type walker struct{ emit func(glyph) }

// maxFormDepth bounds nested form XObjects (a form may draw itself).
const maxFormDepth = 4

func (w *walker) run(strm, res pdf.Value, ctm affine, depth int) {
	if strm.IsNull() {
		return
	}
	g := textState{ctm: ctm, th: 1}
	var stack []textState
	var tm, tlm affine
	fontCache := map[string]*pdfFont{}
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		args := popN(stk, stk.Len())
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		switch op {
		case "q":
			stack = append(stack, g)
		case "Q":
			if n := len(stack); n > 0 {
				g, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				g.ctm = affine{num(0), num(1), num(2), num(3), num(4), num(5)}.mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tc":
			g.tc = num(0)
		case "Tw":
			g.tw = num(0)
		case "Tz":
			g.th = num(0) / 100
		case "TL":
			g.tl = num(0)
		case "Ts":
			g.rise = num(0)
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				f, ok := fontCache[name]
				if !ok {
					f = loadFont(res.Key("Font").Key(name))
					fontCache[name] = f
				}
				g.font, g.tfs = f, num(1)
			}
		case "Td", "TD":
			if op == "TD" {
				g.tl = -num(1)
			}
			tlm = translate(num(0), num(1)).mul(tlm)
			tm = tlm
		case "Tm":
			if len(args) == 6 {
				tlm = affine{num(0), num(1), num(2), num(3), num(4), num(5)}
				tm = tlm
			}
		case "T*":
			tlm = translate(0, -g.tl).mul(tlm)
			tm = tlm
		case "Tj", "'", "\"":
			if op == "\"" && len(args) == 3 {
				g.tw, g.tc = num(0), num(1)
			}
			if op != "Tj" {
				tlm = translate(0, -g.tl).mul(tlm)
				tm = tlm
			}
			if len(args) > 0 {
				tm = w.show(&g, tm, args[len(args)-1].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				v := a.Index(i)
				if v.Kind() == pdf.String {
					tm = w.show(&g, tm, v.RawString())
				} else {
					tm = translate(-v.Float64()/1000*g.tfs*g.th, 0).mul(tm)
				}
			}
		case "Do":
			if len(args) != 1 || depth >= maxFormDepth {
				return
			}
			x := res.Key("XObject").Key(args[0].Name())
			if x.Key("Subtype").Name() != "Form" {
				return
			}
			m := identity
			if mx := x.Key("Matrix"); mx.Len() == 6 {
				m = affine{mx.Index(0).Float64(), mx.Index(1).Float64(), mx.Index(2).Float64(), mx.Index(3).Float64(), mx.Index(4).Float64(), mx.Index(5).Float64()}
			}
			xres := x.Key("Resources")
			if xres.IsNull() {
				xres = res
			}
			w.run(x, xres, m.mul(g.ctm), depth+1)
		}
	})
}

// show draws a string's glyphs and returns the text matrix after them.
func (w *walker) show(g *textState, tm affine, raw string) affine {
	f := g.font
	if f == nil {
		return tm
	}
	for len(raw) > 0 {
		n := min(f.codeLen, len(raw))
		code := uint32(0)
		for i := range n {
			code = code<<8 | uint32(raw[i])
		}
		raw = raw[n:]
		w0 := f.width(code)
		trm := affine{g.tfs * g.th, 0, 0, g.tfs, 0, g.rise}.mul(tm).mul(g.ctm)
		sx, sy := math.Hypot(trm[0], trm[1]), math.Hypot(trm[2], trm[3])
		if s := f.text(code); s != "" {
			w.emit(glyph{s: s, x: trm[4], y: trm[5], w: w0 / 1000 * sx, size: sy})
		}
		tx := w0/1000*g.tfs + g.tc
		if n == 1 && code == 32 {
			tx += g.tw // word spacing applies to single-byte spaces only
		}
		tm = translate(tx*g.th, 0).mul(tm)
	}
	return tm
}

// pdfFont is what drawing text needs of a font: how long its codes are,
// their widths and their Unicode text.
type pdfFont struct {
	codeLen  int
	widths   map[uint32]float64 // in thousandths of the font size
	defWidth float64
	uni      map[uint32]string // from ToUnicode, else a simple font's encoding
}

func (f *pdfFont) width(code uint32) float64 {
	if w, ok := f.widths[code]; ok {
		return w
	}
	return f.defWidth
}

func (f *pdfFont) text(code uint32) string {
	if s, ok := f.uni[code]; ok {
		return s
	}
	return ""
}

func loadFont(v pdf.Value) *pdfFont {
	f := &pdfFont{codeLen: 1, widths: map[uint32]float64{}}
	if v.IsNull() {
		return f
	}
	if v.Key("Subtype").Name() == "Type0" {
		// Composite fonts: two-byte codes (Identity-H and the CMaps
		// browsers and office suites write), widths in the descendant.
		f.codeLen = 2
		d := v.Key("DescendantFonts").Index(0)
		f.defWidth = 1000
		if dw := d.Key("DW"); !dw.IsNull() {
			f.defWidth = dw.Float64()
		}
		cidWidths(d.Key("W"), f.widths)
	} else {
		first := v.Key("FirstChar").Int64()
		ws := v.Key("Widths")
		for i := 0; i < ws.Len(); i++ {
			f.widths[uint32(first)+uint32(i)] = ws.Index(i).Float64()
		}
		f.defWidth = v.Key("FontDescriptor").Key("MissingWidth").Float64()
		if v.Key("Subtype").Name() == "Type3" {
			// Type3 widths are in glyph space: scale by the font matrix.
			if m := v.Key("FontMatrix"); m.Len() == 6 {
				for c, w := range f.widths {
					f.widths[c] = w * m.Index(0).Float64() * 1000
				}
			}
		}
	}
	f.uni = map[uint32]string{}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.uni = readToUnicode(tu, v)
	}
	if f.codeLen == 1 {
		// Codes ToUnicode lacks take the font's named encoding
		// (WinAnsi, MacRoman, Differences), decoded once here.
		font := pdf.Font{V: v}
		enc := font.Encoder()
		for c := range uint32(256) {
			if _, ok := f.uni[c]; !ok {
				if s := enc.Decode(string([]byte{byte(c)})); s != "" && s != "\ufffd" {
					f.uni[c] = s
				}
			}
		}
	}
	return f
}

// cidWidths reads a CID font's W array: "c [w1 w2 …]" gives widths from
// c on, "cfirst clast w" one width for a range.
func cidWidths(a pdf.Value, into map[uint32]float64) {
	for i := 0; i < a.Len(); {
		c := a.Index(i)
		if i+1 < a.Len() && a.Index(i+1).Kind() == pdf.Array {
			ws := a.Index(i + 1)
			for j := 0; j < ws.Len(); j++ {
				into[uint32(c.Int64())+uint32(j)] = ws.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 < a.Len() {
			lo, hi, w := a.Index(i).Int64(), a.Index(i+1).Int64(), a.Index(i+2).Float64()
			for k := lo; k <= hi && k-lo < 1<<16; k++ {
				into[uint32(k)] = w
			}
		}
		i += 3
	}
}

// readToUnicode reads a ToUnicode CMap's bfchar and bfrange entries.
// dict is any dictionary of the file: the CMap's PostScript prologue
// ("/CIDInit /ProcSet findresource begin") needs one on the stack, and
// nothing is defined into it (the CMap's own "dict begin" comes after).
func readToUnicode(strm, dict pdf.Value) map[uint32]string {
	m := map[uint32]string{}
	base := 0
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		switch op {
		case "findresource":
			popN(stk, 2)
			stk.Push(dict)
		case "defineresource":
			popN(stk, 3)
			stk.Push(dict)
		case "pop":
			popN(stk, 1)
		case "beginbfchar", "beginbfrange", "begincodespacerange":
			popN(stk, 1)
			base = stk.Len()
		case "endcodespacerange":
			popN(stk, stk.Len()-base)
		case "endbfchar":
			vals := popN(stk, stk.Len()-base)
			for i := 0; i+1 < len(vals); i += 2 {
				m[codeOf(vals[i].RawString())] = utf16Text(vals[i+1].RawString())
			}
		case "endbfrange":
			vals := popN(stk, stk.Len()-base)
			for i := 0; i+2 < len(vals); i += 3 {
				lo, hi, dst := codeOf(vals[i].RawString()), codeOf(vals[i+1].RawString()), vals[i+2]
				for c := lo; c <= hi && c-lo < 1<<16; c++ {
					switch dst.Kind() {
					case pdf.Array:
						m[c] = utf16Text(dst.Index(int(c - lo)).RawString())
					case pdf.String:
						// The last UTF-16 unit counts up from the range's start.
						u := []byte(dst.RawString())
						if len(u) >= 2 {
							last := uint16(u[len(u)-2])<<8 | uint16(u[len(u)-1]) + uint16(c-lo)
							u[len(u)-2], u[len(u)-1] = byte(last>>8), byte(last)
						}
						m[c] = utf16Text(string(u))
					}
				}
			}
		}
	})
	return m
}

// popN pops n values (fewer if the stack is shorter), in pushed order.
func popN(stk *pdf.Stack, n int) []pdf.Value {
	n = max(0, min(n, stk.Len()))
	vals := make([]pdf.Value, n)
	for i := n - 1; i >= 0; i-- {
		vals[i] = stk.Pop()
	}
	return vals
}

func codeOf(s string) uint32 {
	var c uint32
	for i := 0; i < len(s) && i < 4; i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

// utf16Text decodes big-endian UTF-16 (ToUnicode's destinations),
// dropping what is not a character.
func utf16Text(s string) string {
	units := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		units = append(units, uint16(s[i])<<8|uint16(s[i+1]))
	}
	var out []rune
	for _, r := range utf16.Decode(units) {
		if r != 0 && r != '\uFFFD' {
			out = append(out, r)
		}
	}
	return string(out)
}
