package server

import (
	"context"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

func TestSourcesAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{}) // private addresses refused, as in production
	base := "/api/v1/agents/" + e.agent.ID + "/sources"

	r := e.api("POST", base, map[string]any{"kind": "website", "url": "https://93.184.215.14/", "max_pages": 50, "sync_every": "6h"})
	if r.status != 201 || !strings.HasPrefix(r.str("id"), "src_") || r.str("status") != "queued" || r.str("kind") != "website" ||
		r.str("url") != "https://93.184.215.14/" || r.body["pages"] != 0.0 || r.str("error") != "" || r.body["synced_at"] != nil ||
		r.body["max_pages"] != 50.0 || r.str("sync_every") != "6h" || r.str("created_at") == "" || r.str("next_sync_at") == "" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := r.str("id")
	if r.header.Get("Location") != base+"/"+id {
		t.Fatalf("Location = %q", r.header.Get("Location"))
	}
	if r := e.api("POST", base, map[string]any{"kind": "website", "url": "https://93.184.215.14/docs/"}); r.body["max_pages"] != 200.0 || r.str("sync_every") != "24h" {
		t.Fatalf("defaults: %s", r.raw)
	}
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"kind": "website", "url": "http://127.0.0.1/"}, "url: 127.0.0.1 is "},
		{map[string]any{"kind": "website", "url": "http://192.168.1.1/admin"}, "private addresses"},
		{map[string]any{"kind": "rss", "url": "https://93.184.215.14/"}, `kind must be "website"`},
		{map[string]any{"kind": "website", "url": "https://93.184.215.14/", "max_pages": 2001}, "max_pages must be from 1 to 2000"},
		{map[string]any{"kind": "website", "url": "https://93.184.215.14/", "sync_every": "5m"}, "sync_every must be at least 1h"},
		{map[string]any{"kind": "website", "url": "https://93.184.215.14/", "depth": 3}, ""},
	} {
		r := e.api("POST", base, tc.body)
		wantError(t, r, 400, "")
		if !strings.Contains(r.str("error"), tc.want) {
			t.Errorf("%v: error %q, want it to say %q", tc.body, r.str("error"), tc.want)
		}
	}

	// Pages a sync took in (written as a sync would) answer visitors and
	// are listed.
	ctx := context.Background()
	if err := e.store.ReplaceSourcePages(ctx, id, []domain.SourcePage{{URL: "https://93.184.215.14/delivery", Title: "Delivery",
		Text: "# Delivery\n\nParcels to Chisinau arrive within two working days by courier."}}, store.SourceSync{At: e.agent.CreatedAt}); err != nil {
		t.Fatal(err)
	}
	init := e.do("POST", "/api/widget/init", map[string]any{"key": e.key}, nil)
	chat := e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": init.str("conversation_id"), "text": "how long do parcels to chisinau take?"}, nil)
	if !strings.Contains(chat.str("response"), "two working days") {
		t.Fatalf("a page's answer: %s", chat.raw)
	}
	r = e.api("GET", base+"/"+id, nil)
	if r.status != 200 || r.str("status") != "ready" || r.body["pages"] != 1.0 || r.str("synced_at") == "" {
		t.Fatalf("get: %d %s", r.status, r.raw)
	}
	r = e.api("GET", base+"/"+id+"/pages", nil)
	if pages, _ := r.body["pages"].([]any); r.status != 200 || len(pages) != 1 || pages[0].(map[string]any)["url"] != "https://93.184.215.14/delivery" {
		t.Fatalf("pages: %d %s", r.status, r.raw)
	}
	r = e.api("GET", base, nil)
	if list, _ := r.body["sources"].([]any); r.status != 200 || len(list) != 2 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	if r := e.api("POST", base+"/"+id+"/sync", nil); r.status != 202 || r.str("status") != "queued" {
		t.Fatalf("sync: %d %s", r.status, r.raw)
	}

	// Another account sees none of it.
	_, token := e.newAccount("stranger@example.com", domain.Limits{MonthlyConversations: 10})
	as := map[string]string{"Authorization": "Bearer " + token}
	for _, req := range []struct{ method, path string }{
		{"GET", base}, {"POST", base}, {"GET", base + "/" + id}, {"GET", base + "/" + id + "/pages"},
		{"POST", base + "/" + id + "/sync"}, {"DELETE", base + "/" + id},
	} {
		var body any
		if req.method == "POST" && req.path == base {
			body = map[string]any{"kind": "website", "url": "https://93.184.215.14/"}
		}
		wantError(t, e.do(req.method, req.path, body, as), 404, "")
	}

	<-e.builds // the index the first message built
	// Deleted: 204, gone, and its pages no longer answer.
	if r := e.api("DELETE", base+"/"+id, nil); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	wantError(t, e.api("GET", base+"/"+id, nil), 404, "")
	<-e.builds // the rebuild the delete started
	chat = e.do("POST", "/api/widget/chat", map[string]any{"key": e.key, "conversation_id": init.str("conversation_id"), "text": "how long do parcels to chisinau take?"}, nil)
	if strings.Contains(chat.str("response"), "two working days") {
		t.Fatalf("a deleted source still answers: %s", chat.raw)
	}
}
