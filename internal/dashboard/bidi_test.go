package dashboard

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/secret"
)

// bidiControls are the characters the dashboard must never show raw in
// outside short text.
var bidiControls = []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c}

func TestShowBidi(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                     "plain",
		"shalom שלום":               "shalom שלום", // right-to-left letters are not controls
		"v\u202Eexe.txt":            `v\u202Eexe.txt`,
		"\u2066a\u2069\u200e\u061c": `\u2066a\u2069\u200E\u061C`,
	} {
		if got := showBidi(in); got != want {
			t.Errorf("showBidi(%q) = %q, want %q", in, got, want)
		}
	}
	for _, r := range bidiControls {
		if !isBidiControl(r) {
			t.Errorf("U+%04X is not taken for a control", r)
		}
	}
	if got := bidi(`<b>&"` + "\u202E"); got != `<bdi>&lt;b&gt;&amp;&#34;\u202E</bdi>` {
		t.Errorf("bidi escapes to %q", got)
	}
}

// A visitor id, page URL and first message with a right-to-left override,
// and operator, agent and user names with isolates: the inbox, the
// conversation and the team page show every one of them escaped and
// isolated, and never a raw control.
func TestBidiControlsAreShownNeutralised(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, func(mux *http.ServeMux, d *Dashboard) {
		allRoutes(mux, d)
		mux.HandleFunc("GET /team", d.requireOwner(d.Team))
	})
	ctx := context.Background()
	_, key := td.newAgent(td.owner.AccountID, "Bot \u2067evil\u2069")
	op := td.newUser("rlo@example.com", "Oleg\u202Egnp.exe", td.owner.AccountID)
	res, err := td.chat.Init(ctx, chat.InitInput{Key: key, VisitorID: "visitor\u202Etxt.exe", PageURL: "https://shop.example/\u202Eevil"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := td.chat.TakeOverAs(ctx, td.owner.AccountID, res.ConversationID, op); err != nil {
		t.Fatal(err)
	}
	if _, err := td.chat.OperatorReply(ctx, td.owner.AccountID, res.ConversationID, chat.UserOperator(op), "Hi, how can I help?"); err != nil {
		t.Fatal(err)
	}
	if _, err := td.chat.Chat(ctx, chat.ChatInput{Key: key, ConversationID: res.ConversationID, Text: "hello \u202Eworld"}); err != nil {
		t.Fatal(err) // the last message: the inbox's preview
	}
	if _, err := td.st.CreateAPIToken(ctx, td.owner.AccountID, "ci\u202Etoken", secret.HashToken(secret.APIToken())); err != nil {
		t.Fatal(err)
	}

	owner := td.signedIn(td.owner)
	pages := map[string]string{
		"inbox":        owner.get("/inbox").body,
		"conversation": owner.get("/conversations/" + res.ConversationID).body,
		"team":         owner.get("/team").body,
		"operator":     td.signedIn(op).get("/inbox").body, // the operator's own name in the header
	}
	// A message itself is shown as written, in a paragraph of its own that
	// sets its own direction: nothing outside it can be reordered.
	const written = `<p class="text" dir="auto">hello ` + "\u202E" + `world</p>`
	if !strings.Contains(pages["conversation"], written) {
		t.Errorf("the transcript lacks %q", written)
	}
	for name, body := range pages {
		body = strings.Replace(body, written, "", 1)
		for _, r := range bidiControls {
			if strings.ContainsRune(body, r) {
				t.Errorf("%s page shows U+%04X raw", name, r)
			}
		}
	}
	for name, wants := range map[string][]string{
		"inbox": {`<bdi>visitor\u202Etxt.exe</bdi>`, `<bdi>https://shop.example/\u202Eevil</bdi>`, `<bdi>Bot \u2067evil\u2069</bdi>`,
			`<bdi>hello \u202Eworld</bdi>`},
		"conversation": {`<bdi>visitor\u202Etxt.exe</bdi>`, `<bdi>https://shop.example/\u202Eevil</bdi>`, `<bdi>Bot \u2067evil\u2069</bdi>`,
			`<bdi>Oleg\u202Egnp.exe</bdi> is answering this conversation.`, `<span class="who"><bdi>Oleg\u202Egnp.exe</bdi></span>`},
		"team":     {`<bdi>Oleg\u202Egnp.exe</bdi>`, `<bdi>ci\u202Etoken</bdi>`, `aria-label="Remove Oleg\u202Egnp.exe"`},
		"operator": {`<span class="who"><bdi>Oleg\u202Egnp.exe</bdi></span>`},
	} {
		for _, want := range wants {
			if !strings.Contains(pages[name], want) {
				t.Errorf("%s page lacks %s", name, want)
			}
		}
	}
	if dir := os.Getenv("PARLEY_BIDI_PAGES"); dir != "" { // for a look in a browser
		for name, body := range pages {
			_ = os.WriteFile(dir+"/"+name+".html", []byte(body), 0o644)
		}
	}
}
