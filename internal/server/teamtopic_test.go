package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/internal/chat"
)

// What only the team sees of a conversation — a private note, the visitor
// typing — refreshes another operator's open conversation page (its event
// stream says "change", and its partial then shows it), and does not wake
// what waits on the conversation's own topic: the visitor's long poll.
// Notes written through the dashboard and the API alike.
func TestTeamChangesRefreshTheTeamOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	conv, visitor := e.start()
	ana, ion := e.deskOperator("Ana"), e.deskOperator("Ion")
	anaSession, ionSession := e.deskSession(ana), e.deskSession(ion)
	// The reply makes the conversation a person's (the visitor's typing
	// shows only then).
	if r := e.do("POST", "/conversations/"+conv+"/reply", "text=Hello", anaSession); r.status != http.StatusSeeOther {
		t.Fatalf("reply: %d %s", r.status, r.raw)
	}
	ionPage := e.listen("/events?conversation="+conv, ionSession)
	partial := func() string {
		t.Helper()
		r := e.do("GET", "/conversations/"+conv+"?partial=1", nil, ionSession)
		if r.status != 200 {
			t.Fatalf("partial: %d", r.status)
		}
		return string(r.raw)
	}

	for _, c := range []struct {
		what string
		do   func() response
		want string // in Ion's partial after the change
	}{
		{"a note on the dashboard", func() response {
			return e.do("POST", "/conversations/"+conv+"/notes", "note="+url.QueryEscape("Dashboard note 17"), anaSession)
		}, "Dashboard note 17"},
		{"a note through the API", func() response {
			return e.api("POST", "/api/v1/conversations/"+conv+"/notes", map[string]any{"text": "API note 18"})
		}, "API note 18"},
		{"the visitor typing", func() response {
			return e.do("POST", "/api/widget/typing", map[string]any{"key": e.key, "conversation_id": conv, "visitor_id": visitor}, nil)
		}, "data-typing"},
	} {
		// The visitor's long poll waits on the conversation's topic.
		visitorWoken, cancel := e.hub.Subscribe(conv)
		team, cancelTeam := e.hub.Subscribe(chat.TeamTopic(conv))
		if r := c.do(); r.status >= 400 {
			t.Fatalf("%s: %d %s", c.what, r.status, r.raw)
		}
		if !closedNow(team) {
			t.Errorf("%s did not signal the team topic", c.what)
		}
		if !within(ionPage, generous) {
			t.Fatalf("%s: no change event on Ion's open page", c.what)
		}
		if p := partial(); !strings.Contains(p, c.want) {
			t.Fatalf("%s: Ion's partial lacks %q:\n%s", c.what, c.want, p)
		}
		if closedNow(visitorWoken) {
			t.Errorf("%s woke the conversation's own topic (the visitor's long poll)", c.what)
		}
		cancel()
		cancelTeam()
	}
}

// closedNow is whether ch is closed already: notifiers wake local waiters
// before Publish returns.
func closedNow(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
