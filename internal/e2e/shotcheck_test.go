package e2e

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A screenshot is checked, not only written: it must decode as a PNG of
// the size the page has, and at each probe — a point inside an element,
// found in the live page — show the colour the page computes for that
// element. A blank, cropped, half-rendered or wrongly styled capture fails.

// probe is a point of the page (CSS pixels from the document's top left)
// and the colour the page gives it, as getComputedStyle writes it.
type probe struct {
	What  string  `json:"what"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Color string  `json:"color"`
}

// shotGeometry is what the page says a screenshot of it should be: its
// size in CSS pixels, the device pixel ratio, and the probes.
type shotGeometry struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Ratio  float64 `json:"ratio"`
	Probes []probe `json:"probes"`
}

// geometryJS evaluates to a shotGeometry for a capture of the viewport
// (full false) or of the whole document (full true); probesJS is an
// expression giving the probes (an array of {what, x, y, color}).
func geometryJS(full bool, probesJS string) string {
	size := `innerWidth, height: innerHeight`
	if full {
		size = `Math.max(innerWidth, document.documentElement.scrollWidth), height: Math.max(innerHeight, document.documentElement.scrollHeight)`
	}
	return `({width: ` + size + `, ratio: devicePixelRatio, probes: ` + probesJS + `})`
}

// probeJS is a JavaScript function, probe(what, el, dx, dy, prop), giving
// the probe at (dx, dy) from el's top left (negative: from its right or
// bottom), coloured as el's computed style property prop, in document
// coordinates; null when el is missing.
const probeJS = `((what, el, dx, dy, prop) => {
	if (!el) return null;
	const r = el.getBoundingClientRect();
	return {what, x: (dx < 0 ? r.right + dx : r.left + dx) + scrollX, y: (dy < 0 ? r.bottom + dy : r.top + dy) + scrollY,
		color: getComputedStyle(el)[prop]};
})`

// widgetProbes: the launcher while the panel is closed, the panel's header
// while it is open; both have the agent's colour.
const widgetProbes = `(probe => {
	const la = ` + W + `.querySelector('.la'), hd = ` + W + `.querySelector('.hd');
	return la.hidden ? [probe('the header', hd, hd.getBoundingClientRect().width / 2, 3, 'backgroundColor')]
		: [probe('the launcher', la, 6, la.getBoundingClientRect().height / 2, 'backgroundColor')];
})(` + probeJS + `)`

// dashboardProbes: the header's background, and the accent under the
// current page's link, or the main button where no link is current (the
// sign-in page).
const dashboardProbes = `(probe => [
	probe('the header', document.querySelector('header.top'), 3, 3, 'backgroundColor'),
	probe("the current page's underline", document.querySelector('header nav a[aria-current="page"]'), 8, -1, 'borderBottomColor'),
	document.querySelector('header nav a[aria-current="page"]') ? null : probe('the button', document.querySelector('main button'), 4, 12, 'backgroundColor'),
].filter(Boolean))(` + probeJS + `)`

// capture waits for the page to be loaded, stylesheets included, then
// takes a screenshot of the viewport, or of the whole document (full),
// between two readings of the page's geometry, and checks it against
// them. A page that changed meanwhile (still being laid out on a busy
// machine) is taken again, up to five times.
func capture(p *page, name string, full bool, probes string) []byte {
	p.t.Helper()
	settle(p, "a loaded page", `document.readyState == 'complete' && document.body && document.body.scrollWidth > 0`)
	js := geometryJS(full, probes)
	var b []byte
	var g shotGeometry
	for attempt := 1; ; attempt++ {
		g = eval[shotGeometry](p, js)
		var err error
		if full {
			b, err = chromedp.Run(p.ctx, chromedp.FullScreenshot(100)) // 100: PNG
		} else {
			b, err = chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		}
		if err == nil && reflect.DeepEqual(eval[shotGeometry](p, js), g) {
			break
		}
		if attempt == 5 {
			p.t.Fatalf("%s: the page did not hold still for a screenshot (%v)", name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	checkShot(p.t, name, b, g)
	return b
}

// checkShot decodes a screenshot and compares it with the geometry the
// page reported for it just before the capture.
func checkShot(t testing.TB, name string, b []byte, g shotGeometry) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: not a PNG: %v", name, err)
	}
	size := img.Bounds().Size()
	wantW, wantH := int(math.Round(g.Width*g.Ratio)), int(math.Round(g.Height*g.Ratio))
	if abs(size.X-wantW) > 1 || abs(size.Y-wantH) > 1 {
		t.Errorf("%s: %dx%d pixels, want %dx%d (%gx%g CSS pixels at ratio %g)", name, size.X, size.Y, wantW, wantH, g.Width, g.Height, g.Ratio)
	}
	if len(g.Probes) == 0 {
		t.Errorf("%s: nothing to probe: the page lacks the elements looked for", name)
	}
	for _, p := range g.Probes {
		want, err := parseCSSColor(p.Color)
		if err != nil {
			t.Errorf("%s: %s: %v", name, p.What, err)
			continue
		}
		at := image.Pt(int(p.X*g.Ratio), int(p.Y*g.Ratio))
		r, gr, bl, _ := img.At(at.X, at.Y).RGBA()
		got := [3]int{int(r >> 8), int(gr >> 8), int(bl >> 8)}
		if !at.In(img.Bounds()) || !near(got, want, 3) {
			t.Errorf("%s: %s at %v is rgb%v, want rgb%v (%s)", name, p.What, at, got, want, p.Color)
		}
	}
}

// parseCSSColor reads "rgb(r, g, b)" or an opaque "rgba(r, g, b, 1)", as
// getComputedStyle writes colours.
func parseCSSColor(s string) ([3]int, error) {
	var c [3]int
	var a float64
	if n, _ := fmt.Sscanf(s, "rgb(%d, %d, %d)", &c[0], &c[1], &c[2]); n == 3 {
		return c, nil
	}
	if n, _ := fmt.Sscanf(s, "rgba(%d, %d, %d, %g)", &c[0], &c[1], &c[2], &a); n == 4 && a == 1 {
		return c, nil
	}
	return c, fmt.Errorf("colour %q is not an opaque rgb()", s)
}

func near(a, b [3]int, tolerance int) bool {
	for i := range a {
		if abs(a[i]-b[i]) > tolerance {
			return false
		}
	}
	return true
}

func abs(n int) int { return max(n, -n) }
