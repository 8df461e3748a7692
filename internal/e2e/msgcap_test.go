package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFullConversation: with a cap of 4 messages per conversation, the
// visitor's third question is refused (403, the conversation is full); the
// widget starts a new conversation by itself and sends the question there,
// once, without showing an error or losing the message, and goes on in the
// new conversation. A conversation an operator was answering says the
// assistant answers again.
func TestFullConversation(t *testing.T) {
	t.Parallel()
	s := newStackCapped(t, 4)
	h := newHost(t, s)
	p := newPage(t, 90*time.Second)
	openChat(p, h.url(pageOptions{}))
	key := "parley:" + s.keys["en"]
	conversation := func() string { return eval[string](p, `JSON.parse(localStorage.getItem('`+key+`')).c`) }
	answers := func(n int) string { return W + `.querySelectorAll('.m.a').length == ` + string(rune('0'+n)) }

	first := conversation()
	send(p, "What are your opening hours?")
	p.wait("the first answer", answers(2)) // the greeting and the answer
	send(p, "How much does shipping cost?")
	p.wait("the second answer", answers(3))
	chats, inits := s.faults.count(chatRoute), s.faults.count(initRoute)

	send(p, "What are your opening hours?")
	p.wait("the third answer, in a new conversation", answers(4))
	second := conversation()
	if second == first || second == "" {
		t.Fatalf("conversation %q after the 403, was %q", second, first)
	}
	if c, i := s.faults.count(chatRoute)-chats, s.faults.count(initRoute)-inits; c != 2 || i != 1 {
		t.Errorf("%d chat requests and %d inits for the third question; want 2 (refused, then sent again) and 1", c, i)
	}
	if got := s.messages(first); len(got) != 4 {
		t.Errorf("the full conversation holds %q, want 4 messages", got)
	}
	if got := s.messages(second); len(got) != 2 || got[0] != "visitor: What are your opening hours?" {
		t.Errorf("the new conversation holds %q", got)
	}
	if st, n := status(p), eval[int](p, unsent+`.length`); st != "" || n != 0 {
		t.Errorf("status %q, %d unsent messages after the renewal", st, n)
	}
	shown := eval[[]string](p, `[...`+W+`.querySelectorAll('.m.u')].map(e => e.textContent)`)
	if want := []string{"You: What are your opening hours?", "You: How much does shipping cost?", "You: What are your opening hours?"}; !slices.Equal(shown, want) {
		t.Errorf("the visitor's messages show as %q, want %q", shown, want)
	}

	// An operator answers the new conversation and fills it; the
	// visitor's next message goes to a third one, where the AI answers
	// and says so.
	s.operatorSays(second, "Ana", "Hello, I am Ana.")
	p.wait("the operator's message", W+`.querySelector('.m.o')?.textContent.includes('I am Ana')`)
	s.operatorSays(second, "Ana", "Anything else?")
	p.wait("the operator's second message", W+`.querySelectorAll('.m.o').length == 2`)
	send(p, "How much does shipping cost?")
	p.wait("the answer in a third conversation", answers(5))
	third := conversation()
	if third == second || third == first {
		t.Fatalf("conversation %q after the second 403", third)
	}
	p.wait("the note that the assistant answers again", `[...`+W+`.querySelectorAll('.m.s')].some(e => e.textContent == 'The assistant is answering again.')`)
	if got := s.messages(third); len(got) != 2 || !strings.HasPrefix(got[1], "ai: ") {
		t.Errorf("the third conversation holds %q", got)
	}
	p.checkConsole(failedLoads)
}
