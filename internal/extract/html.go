package extract

import (
	"bytes"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"parley/web/i18n"
)

// extractHTML keeps a page's main content. Two passes: first the parts
// every site repeats on every page (navigation, header, footer, asides,
// cookie banners, forms, scripts) are cut by their tags, roles and the
// class names sites give them; then readability (Mozilla's algorithm)
// picks the block that reads like an article from what is left. When it
// finds none (a short page), the cleaned <main> or <body> is used.
func extractHTML(data []byte, pageURL string) (Document, error) {
	root, err := html.Parse(bytes.NewReader(bytes.TrimPrefix(data, bom)))
	if err != nil {
		return Document{}, ErrDamaged
	}
	doc := Document{Lang: pageLang(root)}
	// Only the body: readability reads the title from the head's <meta>
	// and <title>.
	prune(mainOrBodyOf(root, false), false)

	var base *url.URL
	if pageURL != "" {
		base, _ = url.Parse(pageURL)
	}
	parser := readability.NewParser()
	// A help page is often a few short paragraphs: readability's default
	// of 500 characters would throw it away and retry on the whole page.
	parser.CharThresholds = 200
	// Readability works on the tree itself (a copy would double a large
	// page's memory); the rare page it finds nothing in is parsed again.
	article, rerr := parser.ParseAndMutate(root, base)
	doc.Title = strings.Join(strings.Fields(article.Title()), " ")
	var md *mdWriter
	if rerr == nil && article.Node != nil {
		md = render(article.Node)
	}
	if md == nil || md.letters == 0 || doc.Title == "" {
		if root, err = html.Parse(bytes.NewReader(bytes.TrimPrefix(data, bom))); err != nil {
			return Document{}, ErrDamaged
		}
		prune(mainOrBodyOf(root, false), false)
		if md == nil || md.letters == 0 {
			md = render(mainOrBody(root))
		}
		if doc.Title == "" {
			doc.Title = firstH1(root)
		}
	}
	// A page of links (a site map, a menu page) or of nothing (an empty
	// shell that scripts fill) has no content worth passages.
	if md.letters == 0 || md.linkLetters*10 > md.letters*6 {
		return Document{}, ErrNoContent
	}
	doc.Text = md.String()
	return doc, nil
}

// pageLang is <html lang>'s base language when Parley speaks it.
func pageLang(root *html.Node) string {
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Html {
			if lang, ok := i18n.Base(strings.TrimSpace(getAttr(n, "lang"))); ok {
				return lang
			}
			return ""
		}
	}
	return ""
}

func getAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func firstH1(root *html.Node) string {
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.H1 {
			return strings.Join(strings.Fields(textOf(n)), " ")
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

func mainOrBody(root *html.Node) *html.Node { return mainOrBodyOf(root, true) }

// mainOrBodyOf is the page's <main> (when main is true and it has one),
// else its <body>.
func mainOrBodyOf(root *html.Node, main bool) *html.Node {
	var body *html.Node
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if main && (n.DataAtom == atom.Main || getAttr(n, "role") == "main") {
			return n
		}
		if n.DataAtom == atom.Body && body == nil {
			body = n
		}
	}
	if body == nil {
		return root
	}
	return body
}

// Tags that are never content.
var dropTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Form: true, atom.Button: true, atom.Input: true, atom.Select: true,
	atom.Textarea: true, atom.Nav: true, atom.Aside: true, atom.Dialog: true,
	atom.Canvas: true,
}

// ARIA roles of the parts around the content.
var dropRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"dialog": true, "alertdialog": true, "search": true, "menu": true, "menubar": true,
	"alert": true,
}

// Words in class names and ids of the parts around the content, as
// themes name them ("cookie-banner", "site-header", "header__phone",
// "gdpr-consent", "widget-area").
var dropClassWords = []string{
	"cookie", "consent", "gdpr", "breadcrumb", "skip-link", "newsletter",
	"social", "share", "sidebar", "navbar", "navigation", "masthead", "colophon",
	"topbar", "top-bar", "widget", "banner", "popup", "modal", "subscribe",
}

// Class names and ids that mark a page's header, footer or menu as a whole
// (not "entry-header" or "menu-item" inside an article): exact tokens, or
// a BEM block ("header__logo").
var dropClassTokens = []string{"header", "footer", "menu", "nav", "site-header", "site-footer", "site-nav", "site-menu", "main-menu", "main-nav", "left-column", "right-column"}

// prune removes what is not content. inContent is true inside <article>
// or <main>, where a <header> holds the title and a <footer> the byline,
// not the site's.
func prune(n *html.Node, inContent bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.CommentNode:
			n.RemoveChild(c)
		case c.Type == html.ElementNode && dropNode(c, inContent):
			n.RemoveChild(c)
		case c.Type == html.ElementNode:
			prune(c, inContent || c.DataAtom == atom.Article || c.DataAtom == atom.Main || getAttr(c, "role") == "main")
		}
		c = next
	}
}

func dropNode(n *html.Node, inContent bool) bool {
	if dropTags[n.DataAtom] || dropRoles[strings.ToLower(getAttr(n, "role"))] {
		return true
	}
	if _, hidden := attrOK(n, "hidden"); hidden || getAttr(n, "aria-hidden") == "true" {
		return true
	}
	if style := strings.ReplaceAll(strings.ToLower(getAttr(n, "style")), " ", ""); strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden") {
		return true
	}
	if inContent {
		return false
	}
	if n.DataAtom == atom.Header || n.DataAtom == atom.Footer {
		return true
	}
	if n.DataAtom == atom.Body || n.DataAtom == atom.Html {
		return false
	}
	names := strings.Fields(strings.ToLower(getAttr(n, "class") + " " + getAttr(n, "id")))
	for _, name := range names {
		for _, w := range dropClassWords {
			if strings.Contains(name, w) {
				return true
			}
		}
		block, _, _ := strings.Cut(name, "__")
		for _, t := range dropClassTokens {
			if block == t {
				return true
			}
		}
	}
	return false
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
