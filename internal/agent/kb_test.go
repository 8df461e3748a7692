package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
)

var kbEntries = []domain.KnowledgeEntry{
	{Question: "What are your opening hours?", Answer: "We are open 9 to 17, Monday to Friday."},
	{Question: "How much does shipping cost?", Answer: "Shipping is free over 50 EUR."},
	{Question: "Cât costă livrarea?", Answer: "Livrarea este gratuită peste 50 EUR.", Lang: "ro"},
	{Question: "Сколько стоит доставка?", Answer: "Доставка бесплатна от 50 евро.", Lang: "ru"},
}

func TestKBAnswers(t *testing.T) {
	kb := NewKB(func(context.Context, string) ([]domain.KnowledgeEntry, error) { return kbEntries, nil })
	a := domain.Agent{ID: "ag_1"}
	tests := []struct {
		text, lang, want string
		options          bool
	}{
		{"when are you open? opening hours please", "en", kbEntries[0].Answer, false},
		{"shipping cost?", "en", kbEntries[1].Answer, false},
		{"cat costa livrarea", "ro", kbEntries[2].Answer, false}, // no diacritics
		{"сколько стоит доставка", "ru", kbEntries[3].Answer, false},
		{"tell me about quantum chromodynamics", "en", phrases["en"].dontKnow, true},
		{"???", "ru", phrases["ru"].dontKnow, true},
	}
	for _, tt := range tests {
		r, err := kb.Respond(context.Background(), Request{Agent: a, Text: tt.text, Lang: tt.lang})
		if err != nil {
			t.Fatal(err)
		}
		if r.Text != tt.want {
			t.Errorf("%q (%s): got %q, want %q", tt.text, tt.lang, r.Text, tt.want)
		}
		if (len(r.Options) > 0) != tt.options {
			t.Errorf("%q: options %v, want options=%v", tt.text, r.Options, tt.options)
		}
	}
}

func TestKBCachesPerAgentVersion(t *testing.T) {
	loads := 0
	kb := NewKB(func(context.Context, string) ([]domain.KnowledgeEntry, error) { loads++; return kbEntries, nil })
	v1 := domain.Agent{ID: "ag_1", UpdatedAt: time.Unix(1, 0)}
	for range 3 {
		if _, err := kb.Respond(context.Background(), Request{Agent: v1, Text: "hours", Lang: "en"}); err != nil {
			t.Fatal(err)
		}
	}
	if loads != 1 {
		t.Fatalf("loaded %d times for one version, want 1", loads)
	}
	v2 := v1
	v2.UpdatedAt = time.Unix(2, 0)
	kb.Respond(context.Background(), Request{Agent: v2, Text: "hours", Lang: "en"})
	kb.Invalidate("ag_1")
	kb.Respond(context.Background(), Request{Agent: v2, Text: "hours", Lang: "en"})
	if loads != 3 {
		t.Fatalf("loads = %d after a new version and an invalidation, want 3", loads)
	}
}

func TestKBLoadError(t *testing.T) {
	boom := errors.New("db down")
	kb := NewKB(func(context.Context, string) ([]domain.KnowledgeEntry, error) { return nil, boom })
	if _, err := kb.Respond(context.Background(), Request{Agent: domain.Agent{ID: "x"}, Text: "hi"}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the load error", err)
	}
}

func TestPublicConfig(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"color":"#123456","llm":{"api_key":"sk"},"instructions":"be nice"}`, `{"color":"#123456"}`},
		{`{"greeting":"Hi"}`, `{"greeting":"Hi"}`},
		{`[1,2]`, `{}`},
		{``, `{}`},
		{`null`, `{}`},
	}
	for _, tt := range tests {
		got := PublicConfig(json.RawMessage(tt.in))
		if string(got) != tt.want {
			t.Errorf("PublicConfig(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
