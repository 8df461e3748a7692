package e2e

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// screenshotDocs is where PARLEY_UPDATE_SCREENSHOTS=1 also writes the
// screenshots, for docs/widget.md.
const screenshotDocs = "../../docs/screenshots"

// TestScreenshots takes the widget closed and open, on a desktop and on a
// phone, in English and Russian, into the test's artifact directory (kept
// with go test -artifacts). A person looks at them; the test checks each
// is the viewport's size and shows the agent's colour (#0f766e) where the
// launcher or the panel's header is.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	h := newHost(t, s)
	dir := t.ArtifactDir()
	update := os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1"
	questions := map[string][2]string{
		"en": {"What are your opening hours?", "Can I pay with bitcoin?"},
		"ru": {"Какие у вас часы работы?", "Можно оплатить биткоинами?"},
	}
	for _, lang := range []string{"en", "ru"} {
		p := newPage(t, 90*time.Second)
		shot := func(name string) {
			t.Helper()
			file := "widget-" + name + "-" + lang + ".png"
			// The open animation is off (reduced motion), so the frame is final.
			b := capture(p, file, false, widgetProbes)
			if c := eval[string](p, `getComputedStyle(`+W+`.querySelector('.la').hidden ? `+W+`.querySelector('.hd') : `+W+`.querySelector('.la')).backgroundColor`); c != "rgb(15, 118, 110)" {
				t.Errorf("%s: the launcher or header is %s, want the agent's colour #0f766e", file, c)
			}
			b = recompress(t, b)
			if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if update {
				if err := os.WriteFile(filepath.Join(screenshotDocs, file), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s: %d bytes", file, len(b))
		}
		// Also shows the widget honours prefers-reduced-motion.
		if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		}); err != nil {
			t.Fatal(err)
		}

		p.do(chromedp.EmulateViewport(1280, 800))
		openChat(p, h.url(pageOptions{agent: lang}))
		send(p, questions[lang][0])
		p.wait("the answer", W+`.querySelectorAll('.m.a').length == 2`)
		send(p, questions[lang][1])
		p.wait("the quick reply", W+`.querySelector('.q button')`)
		shot("desktop-open")
		p.keys(kb.Escape)
		p.wait("the closed panel", W+`.querySelector('.p').hidden`)
		// The focus ring on the launcher belongs to keyboard use; a visitor
		// who has not used the chat sees none.
		eval[bool](p, `(`+W+`.activeElement?.blur(), true)`)
		shot("desktop-closed")

		p.do(chromedp.EmulateViewport(375, 740, chromedp.EmulateMobile, chromedp.EmulateTouch))
		p.navigate(h.url(pageOptions{agent: lang}))
		p.wait("the launcher", W+`?.querySelector('.la')`)
		shot("phone-closed")
		p.do(chromedp.Tap(chromedp.JSPath(W + `.querySelector('.la')`)))
		p.wait("the panel", W+`.querySelector('.p') && !`+W+`.querySelector('.p').hidden`)
		eval[bool](p, `(`+W+`.activeElement?.blur(), true)`)
		shot("phone-open")
		p.checkConsole()
	}
	if !update {
		t.Logf("screenshots in %s; PARLEY_UPDATE_SCREENSHOTS=1 also writes them to docs/screenshots", dir)
	}
}

// recompress re-encodes a PNG at the best compression, which makes
// Chromium's screenshots noticeably smaller for the repository. Only
// screenshots bound for docs/screenshots (PARLEY_UPDATE_SCREENSHOTS=1) are
// worth it: under -race it took 10–15 s for a full dashboard page, a
// third of the browser tests' time, for artifacts nobody commits.
func recompress(t *testing.T, b []byte) []byte {
	t.Helper()
	if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") != "1" {
		return b
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img); err != nil {
		t.Fatal(err)
	}
	if out.Len() < len(b) {
		return out.Bytes()
	}
	return b
}
