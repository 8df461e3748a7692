package e2e

import (
	"encoding/json"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"
)

// axNames lists the accessible names of the nodes with role in Chromium's
// accessibility tree (what assistive technology is given), shadow DOM
// included and hidden nodes left out.
func axNames(p *page, role string) []string {
	p.t.Helper()
	res, err := chromedp.Call(p.ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		p.t.Fatalf("reading the accessibility tree: %v", err)
	}
	var names []string
	for _, n := range res.Nodes {
		if n.Ignored || axString(n.Role) != role {
			continue
		}
		names = append(names, axString(n.Name))
	}
	return names
}

func axString(v *accessibility.Value) string {
	if v == nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(v.Value, &s) // a name or role is a string; anything else reads as ""
	return s
}
