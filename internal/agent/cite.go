package agent

import (
	"strings"

	"parley/internal/domain"
	"parley/internal/retrieval"
)

// Passage is one piece of knowledge retrieved for an LLM's prompt: its text
// (see KB.Passages) and the source it cites. Source is zero for a Q&A
// entry, which is the owner's own answer and has nothing to cite.
type Passage struct {
	Text   string
	Source domain.SourceRef
}

// passage is a hit as a Passage: a Q&A entry as "Q: …\nA: …", a document
// passage as its heading and text on the next line.
func passage(h retrieval.Hit) Passage {
	p := Passage{Text: h.Passage}
	switch {
	case h.Question != "":
		p.Text = "Q: " + h.Question + "\nA: " + h.Passage
	case h.Heading != "":
		p.Text = h.Heading + "\n" + h.Passage
	}
	p.Source, _ = citation(h)
	return p
}

// citation is what an answer from h cites, and false when it cites
// nothing:
//   - a page of a website source (the entry has a URL): its title and URL;
//     a page without a title is named by its URL, since a link needs a text;
//   - a document the owner uploaded or pasted: its title alone; an untitled
//     document is named by the passage's heading (the nearest heading above
//     it), and when it has none either it cites nothing, because a source
//     without a name tells the visitor nothing;
//   - a Q&A entry: nothing, it is the owner's own answer.
func citation(h retrieval.Hit) (domain.SourceRef, bool) {
	e := h.Entry
	if !e.IsDocument() {
		return domain.SourceRef{}, false
	}
	title := strings.TrimSpace(e.Title)
	if e.URL != "" {
		if title == "" {
			title = e.URL
		}
		return domain.SourceRef{Title: title, URL: e.URL}, true
	}
	if title == "" {
		title = strings.TrimSpace(h.Heading)
	}
	if title == "" {
		return domain.SourceRef{}, false
	}
	return domain.SourceRef{Title: title}, true
}

// cite is Reply.Sources for an answer from h: nil when it cites nothing.
func cite(h retrieval.Hit) []domain.SourceRef {
	if s, ok := citation(h); ok {
		return []domain.SourceRef{s}
	}
	return nil
}

// Sources lists the sources of passages, in their order, once each: a page
// by its URL, a document by its title (two passages of one document cite it
// once). Passages that cite nothing are skipped; nil when none cites
// anything.
func Sources(passages []Passage) []domain.SourceRef {
	var out []domain.SourceRef
	seen := make(map[domain.SourceRef]bool)
	for _, p := range passages {
		s := p.Source
		if s.Title == "" && s.URL == "" {
			continue
		}
		k := s
		if k.URL != "" {
			k.Title = "" // one page, whatever its passages' titles
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
