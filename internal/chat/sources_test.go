package chat

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"parley/internal/agent"
	"parley/internal/domain"
)

// slowKB is the knowledge-base agent without its Instant mark, so Chat
// takes the path of a responder that may be slow (message stored first).
type slowKB struct{ kb *agent.KB }

func (s slowKB) Respond(ctx context.Context, req agent.Request) (agent.Reply, error) {
	return s.kb.Respond(ctx, req)
}

// A knowledge-base agent answering from a website's page cites its title
// and URL, from an uploaded document its title; a Q&A answer cites nothing.
// On both of Chat's paths.
func TestChatCitesSources(t *testing.T) {
	kb := agent.NewKB(agent.StaticKnowledge{
		{Kind: domain.KindDocument, Title: "Warranty terms", Lang: "en", Text: "# Warranty\n\nAppliances have a two-year warranty. For a claim, email a photo of the defect."},
		domain.SourcePage{ID: "pg_1", URL: "https://shop.example/returns", Title: "Returns and refunds", Lang: "en",
			Text: "# Returns\n\nSend the product back within 30 days in its original packaging; we refund you within a week."}.Entry(),
		{Question: "What are your opening hours?", Answer: "We are open 9 to 17, Monday to Friday."},
	}, agent.KBOptions{})
	t.Cleanup(kb.Stop)
	both(t, func(t *testing.T, instant bool) {
		f := newFixture(t, fixtureOptions{})
		var responder agent.Responder = slowKB{kb}
		if instant {
			responder = kb
		}
		svc := New(Options{Store: f.store, Responder: responder, Notifier: f.notes, Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler)})
		t.Cleanup(svc.Stop)
		conv := f.init()
		tests := []struct {
			text, answer string
			want         []domain.SourceRef
		}{
			{"how do I make a warranty claim?", "Appliances have a two-year warranty. For a claim, email a photo of the defect.", []domain.SourceRef{{Title: "Warranty terms"}}},
			{"can I send the product back for a refund?", "Send the product back within 30 days in its original packaging; we refund you within a week.",
				[]domain.SourceRef{{Title: "Returns and refunds", URL: "https://shop.example/returns"}}},
			{"what are your opening hours?", "We are open 9 to 17, Monday to Friday.", nil},
		}
		var transcript []string
		for _, tt := range tests {
			res, err := svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: conv, Text: tt.text})
			if err != nil {
				t.Fatal(err)
			}
			if res.Response != tt.answer || !slices.Equal(res.Sources, tt.want) || (tt.want == nil) != (res.Sources == nil) {
				t.Errorf("%q: %+v, want %q citing %#v", tt.text, res, tt.answer, tt.want)
			}
			transcript = append(transcript, "visitor: "+tt.text, "ai: "+tt.answer)
		}
		f.wantTranscript(conv, transcript...)
	})
}
