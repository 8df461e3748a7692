package server

import (
	"strconv"
	"strings"
	"testing"

	"parley/internal/agent"
	"parley/internal/domain"
)

// The chat's 200 body carries "sources" only when the answer cites a page
// or a document; without, the body is the spec's with the answer's
// message_id (issue 20). The handoff body is byte for byte the spec's,
// whatever the last answer cited.
func TestChatBodySources(t *testing.T) {
	t.Parallel()
	kb := agent.NewKB(agent.StaticKnowledge{
		{Kind: domain.KindDocument, Title: "Warranty terms", Lang: "en", Text: "# Warranty\n\nAppliances have a two-year warranty. For a claim, email a photo of the defect."},
		domain.SourcePage{ID: "pg_1", URL: "https://shop.example/returns?a=1&b=<2>", Title: `Returns & "refunds"`, Lang: "en",
			Text: "# Returns\n\nSend the product back within 30 days in its original packaging; we refund you within a week."}.Entry(),
		{Question: "What are your opening hours?", Answer: "We are open 9 to 17, Monday to Friday."},
	}, agent.KBOptions{})
	t.Cleanup(kb.Stop)
	e := newEnv(t, envOptions{responder: kb})
	conv, _ := e.start()
	tests := []struct{ text, want string }{
		{"what are your opening hours?", `{"response":"We are open 9 to 17, Monday to Friday."}` + "\n"},
		{"how do I make a warranty claim?", `{"response":"Appliances have a two-year warranty. For a claim, email a photo of the defect.",` +
			`"sources":[{"title":"Warranty terms"}]}` + "\n"},
		{"can I send the product back for a refund?", `{"response":"Send the product back within 30 days in its original packaging; we refund you within a week.",` +
			`"sources":[{"title":"Returns \u0026 \"refunds\"","url":"https://shop.example/returns?a=1\u0026b=\u003c2\u003e"}]}` + "\n"},
	}
	for _, tt := range tests {
		r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": tt.text}, nil)
		// Every answer ends with its id (issue 20), the stored reply's seq.
		msgs := e.messages(conv)
		want := strings.TrimSuffix(tt.want, "}\n") + `,"message_id":"` + strconv.FormatInt(msgs[len(msgs)-1].Seq, 10) + `"}` + "\n"
		if r.status != 200 || string(r.raw) != want {
			t.Errorf("%q: %d\n got %s\nwant %s", tt.text, r.status, r.raw, want)
		}
	}
	// An operator takes over: the handoff body has no sources either.
	if r := e.do("POST", "/api/v1/conversations/"+conv+"/takeover", nil, map[string]string{"Authorization": "Bearer " + e.token}); r.status != 200 {
		t.Fatalf("takeover: %d %s", r.status, r.raw)
	}
	r := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": conv, "text": "how do I make a warranty claim?"}, nil)
	if want := `{"handoff":"human","wait":true}` + "\n"; r.status != 200 || string(r.raw) != want {
		t.Errorf("handoff body: %d %s, want %s", r.status, r.raw, want)
	}
}
