package dashboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"html/template"
	"sync"
)

// The inbox's rows are rendered once and kept (issue 19, "live updates
// within 200 ms p99"). Every open inbox re-fetches its rows on each change
// in the account, so a message to one conversation makes every operator's
// tab render every row again, though one row changed; rendering was three
// quarters of a fetch (docs/benchmarks.md, "Live updates to open
// inboxes"). A row's HTML depends only on what the deskrow template is
// given, deskRow: the language, the list's open conversation and filter
// query, and the row. The cache is keyed by a hash of all of it, so a row
// whose data changed in any way is rendered anew, and nothing is ever
// invalidated: entries for rows no longer shown are simply not asked for.

// maxCachedRows bounds the cache: about 1.5 KB a row (its HTML, the key,
// the map's share), so some 15 MB at most; when full it starts over.
const maxCachedRows = 10_000

// deskRow is everything the deskrow template sees (templates/parts/
// desk.html): give it nothing else, or the cache would not know of it.
type deskRow struct {
	Lang string
	Data deskRowList
	Row  inboxRow
}

// deskRowList is what a row sees of its list.
type deskRowList struct {
	Open  string // the conversation open beside the list
	Query string // the filters, kept on the row's link
}

type rowCache struct {
	mu   sync.Mutex
	rows map[[sha256.Size]byte]template.HTML
}

// renderRows fills in the HTML of the list's rows (pinned and paged), from
// the cache or the deskrow template of the inbox page.
func (d *Dashboard) renderRows(lang string, data *inboxData) error {
	list := deskRowList{Open: data.Open, Query: data.Query}
	for _, rows := range [][]inboxRow{data.Pinned, data.Rows} {
		for i := range rows {
			html, err := d.rowCache.render(d.pages["inbox"], deskRow{Lang: lang, Data: list, Row: rows[i]})
			if err != nil {
				return err
			}
			rows[i].HTML = html
		}
	}
	return nil
}

func (c *rowCache) render(t *template.Template, r deskRow) (template.HTML, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	key := sha256.Sum256(b)
	c.mu.Lock()
	html, ok := c.rows[key]
	c.mu.Unlock()
	if ok {
		return html, nil
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "deskrow", r); err != nil {
		return "", err
	}
	html = template.HTML(buf.String())
	c.mu.Lock()
	if c.rows == nil || len(c.rows) >= maxCachedRows {
		c.rows = map[[sha256.Size]byte]template.HTML{}
	}
	c.rows[key] = html
	c.mu.Unlock()
	return html, nil
}
