package e2e

import (
	"fmt"
	"html"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var plainName = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

// host is the site that embeds the widget. It listens on its own loopback
// port, so it is another origin than Parley, as a customer's site is, and
// sends a strict CSP that allows scripts and connections only to Parley and
// no inline code or styles at all.
type host struct {
	srv *httptest.Server
	api *stack
}

func newHost(t testing.TB, api *stack) *host {
	t.Helper()
	h := &host{api: api}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page)
	mux.HandleFunc("GET /site.css", css(siteCSS))
	mux.HandleFunc("GET /hostile.css", css(hostileCSS))
	// Browsers ask for it; an error answer would be a console error.
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	// Baselines for BenchmarkMainThread: a script that does nothing, and one
	// that only reads localStorage.
	mux.HandleFunc("GET /noop.js", script("window.noop = 1;\n"))
	mux.HandleFunc("GET /storage.js", script("window.stored = localStorage.getItem('x');\n"))
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func script(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte(body))
	}
}

func css(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		_, _ = w.Write([]byte(body))
	}
}

// pageOptions choose what the host page looks like and how it embeds the
// widget.
type pageOptions struct {
	agent    string            // "en" (default) or "ru": which agent's key, and the page's language
	hostile  bool              // add hostile.css, which attacks everything it can reach
	noWidget bool              // leave the script tag out
	attrs    map[string]string // extra data-* attributes of the script tag
	timing   bool              // also allow the page's own scripts (for the timing control)
}

// url returns the address of a host page with these options.
func (h *host) url(o pageOptions) string {
	q := url.Values{}
	if o.agent != "" {
		q.Set("agent", o.agent)
	}
	if o.hostile {
		q.Set("hostile", "1")
	}
	if o.noWidget {
		q.Set("widget", "0")
	}
	if o.timing {
		q.Set("timing", "1")
	}
	for k, v := range o.attrs {
		q.Set("data-"+k, v)
	}
	return h.srv.URL + "/?" + q.Encode()
}

func (h *host) page(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	lang := "en"
	if q.Get("agent") == "ru" {
		lang = "ru"
	}
	api := h.api.srv.URL
	scripts := api
	if q.Get("timing") == "1" {
		scripts += " 'self'"
	}
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src "+scripts+"; connect-src "+api+"; style-src 'self'; img-src 'self'; font-src 'self'; frame-src 'none'; object-src 'none'; base-uri 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// html/template will not take attribute names from data, rightly; these
	// come from the tests' own pageOptions and are checked to be plain.
	var attrs []template.HTMLAttr
	for k, v := range q {
		if name, ok := strings.CutPrefix(k, "data-"); ok && plainName.MatchString(name) {
			attrs = append(attrs, template.HTMLAttr(fmt.Sprintf(` data-%s="%s"`, name, html.EscapeString(v[0]))))
		}
	}
	data := struct {
		Lang, Src, Key string
		Hostile        bool
		Widget         bool
		Attrs          []template.HTMLAttr
		Text           pageText
	}{lang, api + "/widget.js", h.api.keys[lang], q.Get("hostile") == "1", q.Get("widget") != "0", attrs, pageTexts[lang]}
	if err := hostTemplate.Execute(w, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

type pageText struct{ Title, Lead, Button, Card1, Card2, Card3, Footer string }

var pageTexts = map[string]pageText{
	"en": {"Outdoor gear for every season", "Jackets, boots and tents, tested on real trails. Free shipping on orders over 50 euros.", "Shop the sale", "Rain jackets", "Hiking boots", "Tents", "Northwind Outfitters, a demo site"},
	"ru": {"Снаряжение для любого сезона", "Куртки, ботинки и палатки, проверенные на настоящих тропах. Бесплатная доставка от 50 евро.", "К распродаже", "Дождевики", "Ботинки", "Палатки", "Northwind Outfitters, демонстрационный сайт"},
}

var hostTemplate = template.Must(template.New("host").Parse(`<!doctype html>
<html lang="{{.Lang}}" class="site">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Northwind Outfitters</title>
<link rel="stylesheet" href="/site.css">
{{if .Hostile}}<link rel="stylesheet" href="/hostile.css">{{end}}
</head>
<body class="home">
<header class="top"><a class="brand" href="/">Northwind Outfitters</a>
<nav><a href="/shop">Shop</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav></header>
<main id="content">
<h1>{{.Text.Title}}</h1>
<p class="lead">{{.Text.Lead}}</p>
<p><button class="cta" type="button">{{.Text.Button}}</button></p>
<div class="cards"><div class="card">{{.Text.Card1}}</div><div class="card">{{.Text.Card2}}</div><div class="card">{{.Text.Card3}}</div></div>
</main>
<footer class="foot">{{.Text.Footer}}</footer>
{{if .Widget}}<script async src="{{.Src}}" data-key="{{.Key}}"{{range .Attrs}}{{.}}{{end}}></script>{{end}}
</body>
</html>
`))

const siteCSS = `* { box-sizing: border-box; }
body { margin: 0; font: 17px/1.6 Georgia, serif; color: #222; background: #f7f5f0; }
.top { display: flex; justify-content: space-between; align-items: center; padding: 18px 32px; background: #1f2a24; color: #fff; }
.top a { color: #fff; margin-left: 18px; text-decoration: none; }
.brand { font-weight: 700; margin-left: 0 !important; }
main { max-width: 960px; margin: 0 auto; padding: 40px 32px 120px; }
h1 { font-size: 40px; line-height: 1.15; margin: 0 0 16px; }
.lead { font-size: 20px; color: #444; max-width: 620px; }
.cta { font: inherit; padding: 12px 22px; border: 0; border-radius: 4px; background: #b45309; color: #fff; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 18px; margin-top: 36px; }
.card { height: 160px; padding: 16px; border-radius: 6px; background: #e4ddd0; font-weight: 700; }
.foot { padding: 24px 32px; color: #555; border-top: 1px solid #ddd; }
@media (max-width: 600px) { .top { padding: 14px 16px; } .top nav { display: none; } main { padding: 24px 16px 100px; } h1 { font-size: 30px; } }
`

// hostileCSS is what a careless or hostile page can throw at the widget.
// Selectors cannot reach into the shadow root, but the host element itself
// is in the page's DOM, and inherited properties would flow in through it.
const hostileCSS = `* { font-family: "Comic Sans MS", serif !important; color: red !important; letter-spacing: 3px; }
button { background: yellow !important; border: 5px solid green; padding: 30px; font-size: 40px; }
div { position: static; margin: 40px; display: inline; opacity: .5; }
#parley-widget { bottom: 300px !important; display: none; transform: scale(2); }
textarea, [role=dialog], [role=log] { display: none !important; }
`
