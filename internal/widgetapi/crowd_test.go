package widgetapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/agent"
	"parley/internal/chat"
	"parley/internal/domain"
	"parley/internal/notify"
	"parley/internal/park"
	"parley/internal/secret"
	"parley/internal/store"
	"parley/internal/store/sqlite"
	"parley/internal/widgetapi"
)

// gatedStore holds every CreateConversation until the gate opens: inits
// pile up as they do behind a busy writer.
type gatedStore struct {
	store.Store
	gate chan struct{}
}

func (g gatedStore) CreateConversation(ctx context.Context, n store.NewConversation) (domain.Conversation, error) {
	<-g.gate
	return g.Store.CreateConversation(ctx, n)
}

// TestCrowdedInitIsParked: once enough inits are in progress, the next one
// gives its connection over to the parking lot while it waits; it is
// answered like any other, on a connection the client keeps using. Inits
// before the crowd are answered in their handlers.
func TestCrowdedInitIsParked(t *testing.T) {
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acc, err := st.CreateAccount(ctx, store.NewAccount{Email: "o@example.com", Name: "O", PasswordHash: "h", Limits: domain.Limits{MonthlyConversations: 100}})
	if err != nil {
		t.Fatal(err)
	}
	key := secret.WidgetKey()
	if _, err := st.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "Bot", Key: key}); err != nil {
		t.Fatal(err)
	}
	gated := gatedStore{Store: st, gate: make(chan struct{})}
	opened := false
	open := func() {
		if !opened {
			opened = true
			close(gated.gate)
		}
	}
	defer open()
	kb := agent.NewKB(st, agent.KBOptions{})
	defer kb.Stop()
	svc := chat.New(chat.Options{Store: gated, Responder: kb, Notifier: notify.NewHub(),
		Logger: slog.New(slog.DiscardHandler), CrowdedInits: 2})

	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := park.NewListener(tcp)
	lot := park.NewLot(ln)
	api := widgetapi.New(svc).ParkOn(lot)
	var hijacked atomic.Int32
	srv := &http.Server{
		Handler: http.HandlerFunc(api.Init),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateHijacked {
				hijacked.Add(1)
			}
		},
	}
	go srv.Serve(ln)
	defer func() {
		open()
		srv.Close()
		lot.Wait()
	}()
	url := "http://" + tcp.Addr().String() + "/api/widget/init"

	type answer struct {
		status int
		body   initBody
		reused bool
	}
	initOn := func(c *http.Client) answer {
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, url,
			strings.NewReader(`{"key":"`+key+`"}`))
		res, err := c.Do(req)
		if err != nil {
			t.Error(err)
			return answer{}
		}
		defer res.Body.Close()
		var b initBody
		raw, _ := io.ReadAll(res.Body)
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Errorf("init answered %d %q", res.StatusCode, raw)
		}
		return answer{res.StatusCode, b, reused}
	}
	client := func() *http.Client { return &http.Client{Transport: &http.Transport{}} }

	// Two inits wait for the store: a crowd of two.
	answers := make([]answer, 3)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() { answers[i] = initOn(client()) })
	}
	waitFor(t, "two inits in progress", svc.Crowded)
	if n := hijacked.Load(); n != 0 {
		t.Fatalf("%d inits were parked before the crowd formed", n)
	}
	third := client()
	wg.Go(func() { answers[2] = initOn(third) })
	waitFor(t, "the third init parked", func() bool { return hijacked.Load() == 1 })

	open()
	wg.Wait()
	seen := map[string]bool{}
	for i, a := range answers {
		if a.status != http.StatusOK || !strings.HasPrefix(a.body.ConversationID, "cv_") || a.body.ChatbotName != "Bot" || seen[a.body.ConversationID] {
			t.Fatalf("init %d: %d %+v", i, a.status, a.body)
		}
		seen[a.body.ConversationID] = true
	}
	// The parked init's connection came back to the server: the client's
	// next request goes on it, and is answered in its handler.
	if a := initOn(third); a.status != http.StatusOK || !a.reused {
		t.Fatalf("after the parked init: %d, connection reused %v", a.status, a.reused)
	}
	if n := hijacked.Load(); n != 1 {
		t.Fatalf("%d inits were parked, want 1", n)
	}
}

type initBody struct {
	ConversationID string `json:"conversation_id"`
	VisitorID      string `json:"visitor_id"`
	ChatbotName    string `json:"chatbot_name"`
}

// waitFor polls cond until it holds, failing after a generous bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
