package chat

import (
	"strings"
	"testing"
	"time"
)

// Init stores what the widget told about the browser and the first page;
// chat adds the pages the visitor moved to; values not of their form are
// dropped without failing the chat, and a page_url too long is refused.
func TestVisitorDetailsRecorded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	ua := "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	res, err := f.svc.Init(f.ctx, InitInput{Key: f.key, PageURL: "https://shop.example/", Visitor: VisitorInfo{
		UserAgent: ua, Language: "ro-RO", TimeZone: "Europe/Bucharest", Referrer: "https://search.example/results",
	}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.store.VisitorContext(f.ctx, res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if v.UserAgent != ua || v.Language != "ro-RO" || v.TimeZone != "Europe/Bucharest" || v.Referrer != "https://search.example/results" {
		t.Errorf("context %+v", v)
	}
	if len(v.Pages) != 1 || v.Pages[0].URL != "https://shop.example/" || !v.Pages[0].At.Equal(start) {
		t.Errorf("pages after init %+v", v.Pages)
	}

	f.clock.Set(start.Add(time.Minute))
	for _, page := range []string{"https://shop.example/pricing", "https://shop.example/pricing", ""} {
		if _, err := f.svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: res.ConversationID, Text: "hi", PageURL: page}); err != nil {
			t.Fatal(err)
		}
	}
	v, _ = f.store.VisitorContext(f.ctx, res.ConversationID)
	if len(v.Pages) != 2 || v.Pages[0].URL != "https://shop.example/pricing" || !v.Pages[0].At.Equal(start.Add(time.Minute)) {
		t.Errorf("pages after chats %+v", v.Pages)
	}
	_, err = f.svc.Chat(f.ctx, ChatInput{Key: f.key, ConversationID: res.ConversationID, Text: "hi", PageURL: "https://x.example/" + strings.Repeat("a", MaxPageURLChars)})
	if !isInvalid(err) {
		t.Errorf("chat with a page_url too long: %v, want invalid", err)
	}

	// Odd values are dropped, the rest kept; the init succeeds.
	res, err = f.svc.Init(f.ctx, InitInput{Key: f.key, Visitor: VisitorInfo{
		UserAgent: strings.Repeat("u", MaxUserAgentChars+10), Language: "<script>", TimeZone: strings.Repeat("Z", MaxTimeZoneChars+1), Referrer: "javascript:alert(1)",
	}})
	if err != nil {
		t.Fatal(err)
	}
	v, _ = f.store.VisitorContext(f.ctx, res.ConversationID)
	if len(v.UserAgent) != MaxUserAgentChars || v.Language != "" || v.TimeZone != "" || v.Referrer != "" || len(v.Pages) != 0 {
		t.Errorf("odd values: %+v", v)
	}
}
