package llm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"parley/internal/agent"
	"parley/internal/domain"
)

// An LLM agent cites the pages and documents of the passages the model
// cited by number, read from a real knowledge-base index, once each; Q&A
// entries cite nothing, and neither does a reply the model marks
// unanswered. The fake model finds the numbers in the prompt it is sent,
// as a real one would.
func TestRespondCitesPassages(t *testing.T) {
	kb := agent.NewKB(agent.StaticKnowledge{
		{Kind: domain.KindDocument, Title: "Warranty terms.pdf", Lang: "en", Text: "# Warranty\n\nAppliances have a two-year warranty.\n\n" +
			"# Warranty claims\n\nFor a warranty claim, email a photo of the defect."},
		domain.SourcePage{ID: "pg_1", URL: "https://shop.example/returns", Title: "Returns and refunds", Lang: "en",
			Text: "# Returns\n\nA product with a defect can be sent back within 30 days for a refund."}.Entry(),
		{Question: "Do you repair appliances with a defect?", Answer: "Yes, in our Cluj workshop."},
	}, agent.KBOptions{})
	t.Cleanup(kb.Stop)

	tests := []struct {
		name, text, content string
		want                []domain.SourceRef
	}{
		{
			"answered from a document and a page", "my appliance has a defect: warranty claim or refund?",
			`{"reply": "Email a photo for a warranty claim [{email a photo}], or send it back within 30 days [{30 days for a refund}].", "unanswered": false}`,
			[]domain.SourceRef{{Title: "Warranty terms.pdf"}, {Title: "Returns and refunds", URL: "https://shop.example/returns"}},
		},
		{
			"answered from the page alone", "my appliance has a defect: warranty claim or refund?",
			`{"reply": "Send it back within 30 days [{30 days for a refund}].", "unanswered": false}`,
			[]domain.SourceRef{{Title: "Returns and refunds", URL: "https://shop.example/returns"}},
		},
		{
			"cites nothing", "my appliance has a defect: warranty claim or refund?",
			`{"reply": "Email a photo, or send it back within 30 days.", "unanswered": false}`, nil,
		},
		{
			"unanswered", "my appliance has a defect: warranty claim or refund?",
			`{"reply": "I am not sure, sorry.", "unanswered": true}`, nil,
		},
		{"no passage matched", "what is the weather on Mars", "I don't know that.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, citing(tt.content))
			r := New(Config{BaseURL: srv.baseURL(), Model: "m"}, Deps{Passages: kb.Passages})
			req := testRequest()
			req.Text = tt.text
			got, err := respond(t, r, req)
			if err != nil {
				t.Fatal(err)
			}
			// Each cited source's order is the passages' (best first), which
			// the test does not pin; what is cited, once each, it does.
			sources := slices.Clone(got.Sources)
			slices.SortFunc(sources, func(a, b domain.SourceRef) int { return strings.Compare(a.URL+a.Title, b.URL+b.Title) })
			want := slices.Clone(tt.want)
			slices.SortFunc(want, func(a, b domain.SourceRef) int { return strings.Compare(a.URL+a.Title, b.URL+b.Title) })
			if !slices.Equal(sources, want) {
				t.Errorf("Sources = %+v, want %+v", got.Sources, tt.want)
			}
			if strings.ContainsAny(got.Text, "[]{}") {
				t.Errorf("Text = %q, still holds citations", got.Text)
			}
			if tt.want == nil && got.Sources != nil {
				t.Errorf("Sources = %#v, want nil", got.Sources)
			}
			prompt := srv.requests()[0].Body.Messages[0].Content
			for _, s := range tt.want {
				if s.URL != "" && !strings.Contains(prompt, "30 days for a refund") || s.URL == "" && !strings.Contains(prompt, "email a photo") {
					t.Errorf("cites %+v, whose passage the model was not given:\n%s", s, prompt)
				}
			}
		})
	}
}

// citing answers like completion, with each "[{needle}]" in content
// replaced by "[n]", n the number of the passage in the system prompt that
// holds needle ("[0]" when none does, which the responder leaves alone).
func citing(content string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		completion(citeNeedles(content, r))(w, r, n)
	}
}

var needleRE = regexp.MustCompile(`\[\{([^}]*)\}\]`)

func citeNeedles(content string, r *http.Request) string {
	var body chatRequest
	_ = json.NewDecoder(r.Body).Decode(&body)
	prompt := ""
	if len(body.Messages) > 0 {
		prompt = body.Messages[0].Content
	}
	return needleRE.ReplaceAllStringFunc(content, func(m string) string {
		needle := needleRE.FindStringSubmatch(m)[1]
		for i := 1; ; i++ {
			start := strings.Index(prompt, fmt.Sprintf("<<<PASSAGE %d\n", i))
			end := strings.Index(prompt, fmt.Sprintf("PASSAGE %d>>>", i))
			if start < 0 || end < start {
				return "[0]"
			}
			if strings.Contains(prompt[start:end], needle) {
				return fmt.Sprintf("[%d]", i)
			}
		}
	})
}
