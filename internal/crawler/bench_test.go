package crawler

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"parley/internal/testsvc"
)

// BenchmarkCrawl200 crawls a local 200-page site (each page links to ten
// others and carries 8 KiB of text) with the default PerHost. latency is
// the site's time to answer: 0 shows the crawler's own cost per page,
// 20ms a real site's, where PerHost, not CPU, bounds the rate.
func BenchmarkCrawl200(b *testing.B) {
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%v", latency), func(b *testing.B) {
			s := newTestSite(b)
			filler := make([]byte, 8<<10)
			for i := range filler {
				filler[i] = 'a' + byte(i%26)
			}
			s.mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
				var n int
				fmt.Sscan(r.PathValue("n"), &n)
				if latency > 0 {
					time.Sleep(latency)
				}
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(w, "<html><head><title>Page %d</title></head><body><p>%s</p>", n, filler)
				for k := 1; k <= 10; k++ {
					fmt.Fprintf(w, `<a href="/p/%d">page %d</a>`, (n*7+k)%200, k)
				}
				fmt.Fprint(w, "</body></html>")
			})
			cfg := Config{Client: privateOK(), MaxPages: 200}
			b.ReportAllocs()
			cpu := testsvc.CPU(b)
			start := time.Now()
			for b.Loop() {
				res, err := Crawl(context.Background(), cfg, s.URL+"/p/0", func(Document) error { return nil })
				if err != nil || res.Emitted != 200 {
					b.Fatalf("%d pages, %v", res.Emitted, err)
				}
			}
			cpu()
			b.ReportMetric(float64(200*b.N)/time.Since(start).Seconds(), "pages/s")
		})
	}
}
