// Package favicon draws Parley's icon, a speech bubble with three dots in
// the widget's default blue, and packs it as an ICO file. The drawing is
// code rather than a file from a drawing program, so it is reproducible
// and small; favicongen writes it to web/favicon.ico, which is committed
// and embedded.
package favicon

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
)

// Sizes are the square sizes in the ICO: what browsers pick from for a
// tab (16, 32 on high-density screens) and for shortcuts (48).
var Sizes = []int{16, 32, 48}

var (
	blue  = color.NRGBA{0x25, 0x63, 0xeb, 0xff} // the widget's default --pc
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// inside reports which colour covers the point (x, y) of the unit square,
// if any: the bubble (a rounded rectangle with a tail at the bottom left)
// in blue, its three dots in white.
func inside(x, y float64) (color.NRGBA, bool) {
	for _, cx := range []float64{0.30, 0.50, 0.70} {
		if math.Hypot(x-cx, y-0.43) <= 0.075 {
			return white, true
		}
	}
	if roundRect(x, y, 0.04, 0.08, 0.96, 0.78, 0.18) {
		return blue, true
	}
	// The tail: a triangle below the bubble's left part.
	if y >= 0.70 && y <= 0.96 {
		t := (y - 0.70) / 0.26
		if x >= 0.18 && x <= 0.46-0.28*t {
			return blue, true
		}
	}
	return color.NRGBA{}, false
}

func roundRect(x, y, x0, y0, x1, y1, r float64) bool {
	if x < x0 || x > x1 || y < y0 || y > y1 {
		return false
	}
	cx := math.Max(x0+r, math.Min(x, x1-r))
	cy := math.Max(y0+r, math.Min(y, y1-r))
	return math.Hypot(x-cx, y-cy) <= r
}

// Draw renders the icon at n×n pixels, each pixel the average of 8×8
// samples, so the edges are smooth.
func Draw(n int) *image.NRGBA {
	const ss = 8
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for py := range n {
		for px := range n {
			var r, g, b, a float64
			for sy := range ss {
				for sx := range ss {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(n)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(n)
					if c, ok := inside(x, y); ok {
						r += float64(c.R)
						g += float64(c.G)
						b += float64(c.B)
						a++
					}
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(r / a), G: uint8(g / a), B: uint8(b / a), A: uint8(math.Round(a / (ss * ss) * 255)),
			})
		}
	}
	return img
}

// ICO returns the icon at every size of Sizes as one ICO file whose
// images are PNGs (which every browser that reads ICO files accepts).
func ICO() ([]byte, error) {
	var pngs [][]byte
	for _, n := range Sizes {
		var b bytes.Buffer
		if err := png.Encode(&b, Draw(n)); err != nil {
			return nil, err
		}
		pngs = append(pngs, b.Bytes())
	}
	var out bytes.Buffer
	le := binary.LittleEndian
	// ICONDIR: reserved, type 1 (icon), count.
	_ = binary.Write(&out, le, [3]uint16{0, 1, uint16(len(pngs))})
	offset := 6 + 16*len(pngs)
	for i, n := range Sizes {
		// ICONDIRENTRY: width, height, colours, reserved, planes, bit
		// count, size of the data, its offset.
		out.Write([]byte{byte(n), byte(n), 0, 0})
		_ = binary.Write(&out, le, [2]uint16{1, 32})
		_ = binary.Write(&out, le, [2]uint32{uint32(len(pngs[i])), uint32(offset)})
		offset += len(pngs[i])
	}
	for _, p := range pngs {
		out.Write(p)
	}
	return out.Bytes(), nil
}
