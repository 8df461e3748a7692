package chat

import (
	"context"
	"errors"
	"slices"
	"time"

	"parley/internal/agent"
	"parley/internal/domain"
	"parley/internal/handoff"
	"parley/internal/store"
)

type ChatInput struct {
	Key            string
	ConversationID string
	Text           string
	Origin         string // the request's Origin header, "" when none (domain.AgentConfig.CheckOrigin)
	VisitorID      string // optional; when sent it must be the conversation's visitor
	Lang           string // one of i18n.Languages; "" means en
	// PageURL is the page the visitor is on now (optional), added to the
	// conversation's page history when it changed (issue 19).
	PageURL string
	// OnDelta, when set, streams the reply: it is handed the AI's text as
	// it is written (agent.RespondStream), on the calling goroutine, and
	// an operator's takeover stops the AI at once (stream.go). The result
	// is the same as without it; nil is the plain call.
	OnDelta func(text string)
}

// ChatResult is one of the spec's two 200 bodies: Handoff true means an
// operator handles the conversation (the AI did not answer). Sources are
// the pages and documents the answer comes from (agent.Reply.Sources), nil
// when none; they are returned, not stored with the message.
type ChatResult struct {
	Handoff  bool
	Response string
	Options  []string
	Sources  []domain.SourceRef
	// Offline: the reply hands over to a person, but none can answer now
	// (outside business hours or nobody online; Options.Offline): the
	// widget asks for an e-mail address (Contact).
	Offline bool
}

// Chat stores the visitor's message and, while the AI handles the
// conversation, returns the AI's reply. The message is stored before the AI
// is asked, so an AI failure (502/504) never loses it; with an instant
// responder (the knowledge base) both are stored in one write instead
// (chatInstant).
func (s *Service) Chat(ctx context.Context, in ChatInput) (ChatResult, error) {
	if err := checkKey(in.Key); err != nil {
		return ChatResult{}, err
	}
	if in.ConversationID == "" {
		return ChatResult{}, domain.Invalid("conversation_id is required")
	}
	if err := checkText(in.Text); err != nil {
		return ChatResult{}, err
	}
	lang, err := NormalizeLang(in.Lang)
	if err != nil {
		return ChatResult{}, err
	}
	if err := checkVisitorID(in.VisitorID); err != nil {
		return ChatResult{}, err
	}
	if err := checkPageURL(in.PageURL); err != nil {
		return ChatResult{}, err
	}
	ag, conv, err := s.conversation(ctx, in.Key, in.Origin, in.ConversationID)
	if err != nil {
		return ChatResult{}, err
	}
	if in.VisitorID != "" && in.VisitorID != conv.VisitorID {
		return ChatResult{}, domain.ErrConversationInvalid
	}
	s.recordPage(ctx, conv.ID, in.PageURL, s.now())

	visitor := store.NewMessage{ConversationID: conv.ID, Role: domain.RoleVisitor, Text: in.Text, CreatedAt: s.now(), MaxMessages: s.maxMessages}
	if conv.Mode == domain.ModeAI && agent.IsInstant(s.responder, ag) {
		return s.chatInstant(ctx, ag, conv, visitor, lang, in.OnDelta)
	}

	_, conv, err = s.store.AddMessage(ctx, visitor)
	if err != nil {
		return ChatResult{}, err
	}
	s.changed(conv.AccountID, conv.ID)
	s.emitMessage(ctx, conv, visitor)
	if conv.Mode == domain.ModeHuman {
		return ChatResult{Handoff: true}, nil
	}
	actx, stop := ctx, func() bool { return false }
	if in.OnDelta != nil {
		actx, stop = s.watchTakeover(ctx, conv.ID)
	}
	reply, wantsHuman, err := s.reply(actx, ag, conv, in.Text, lang, in.OnDelta)
	if stop() {
		// An operator took over while the AI was writing: the visitor
		// hears from the human alone, and the unfinished reply is dropped.
		return ChatResult{Handoff: true}, nil
	}
	if err != nil {
		return ChatResult{}, err
	}

	// Stored only if no operator took over while the AI was thinking: from
	// the takeover on, the visitor must hear from the human alone. A
	// handoff message and the conversation's wait for a human are stored
	// together.
	aiMsg := s.aiMessage(visitor, lang, reply, wantsHuman)
	_, conv, err = s.store.AddMessage(ctx, aiMsg)
	if errors.Is(err, domain.ErrModeChanged) {
		return ChatResult{Handoff: true}, nil
	}
	if err != nil {
		return ChatResult{}, err
	}
	s.changed(conv.AccountID, conv.ID)
	s.emitMessage(ctx, conv, aiMsg)
	res := ChatResult{Response: reply.Text, Options: reply.Options, Sources: reply.Sources}
	if wantsHuman {
		s.emitConversation(ctx, eventConversationWaiting, conv, "")
		s.offlineWaiting(ctx, conv)
		res.Offline = s.isOffline(ctx, conv.AccountID)
	}
	return res, nil
}

// chatInstant is Chat for an agent whose responder answers from memory
// (agent.Instant): it answers first, then stores the visitor's message and
// the reply in one write. The reply is left out if an operator took the
// conversation over meanwhile (the visitor's message is kept: the operator
// answers it). Should the responder fail after all, the message is stored
// alone and the error returned, as when it is stored first.
func (s *Service) chatInstant(ctx context.Context, ag domain.Agent, conv domain.Conversation, visitor store.NewMessage, lang string, onDelta func(string)) (ChatResult, error) {
	keep := func() error {
		_, conv, err := s.store.AddMessage(context.WithoutCancel(ctx), visitor)
		if err == nil {
			s.changed(conv.AccountID, conv.ID)
			s.emitMessage(ctx, conv, visitor)
		}
		return err
	}
	reply, wantsHuman, err := func() (agent.Reply, bool, error) {
		defer func() {
			if p := recover(); p != nil {
				keep() // the server answers 500; the message stays
				panic(p)
			}
		}()
		// Streamed only once stored (below): the answer is instant, and a
		// refusal of the write (a full conversation's 403) keeps its
		// status code instead of following the answer as an error event.
		return s.reply(ctx, ag, conv, visitor.Text, lang, nil)
	}()
	if err != nil {
		if kerr := keep(); kerr != nil {
			err = kerr
		}
		return ChatResult{}, err
	}
	aiMsg := s.aiMessage(visitor, lang, reply, wantsHuman)
	conv, replySeq, err := s.store.AddExchange(ctx, visitor, aiMsg)
	if err != nil {
		return ChatResult{}, err
	}
	stored := replySeq != 0
	s.changed(conv.AccountID, conv.ID)
	s.emitMessage(ctx, conv, visitor)
	if !stored {
		return ChatResult{Handoff: true}, nil
	}
	s.emitMessage(ctx, conv, aiMsg)
	res := ChatResult{Response: reply.Text, Options: reply.Options, Sources: reply.Sources}
	if wantsHuman {
		s.emitConversation(ctx, eventConversationWaiting, conv, "")
		s.offlineWaiting(ctx, conv)
		res.Offline = s.isOffline(ctx, conv.AccountID)
	}
	if onDelta != nil && !wantsHuman {
		// The handoff message is no answer of the agent's: like the
		// stored-first path, it comes in the result only.
		onDelta(reply.Text)
	}
	return res, nil
}

// reply is the agent's answer to a visitor's text in a conversation the AI
// handles, and whether the conversation should now wait for a human: the
// handoff message when the visitor asks for a person (the AI is not
// asked), else the AI's reply adjusted to the agent's handoff settings.
// onDelta, if set, is handed the AI's text as it is written; the handoff
// message is not streamed (the final answer carries it).
func (s *Service) reply(ctx context.Context, ag domain.Agent, conv domain.Conversation, text, lang string, onDelta func(string)) (agent.Reply, bool, error) {
	settings := handoff.SettingsOf(ag.Config)
	if settings.Enabled && handoff.AsksForHuman(text) {
		return agent.Reply{Text: settings.Message(lang)}, true, nil
	}
	r, err := s.ask(ctx, agent.Request{Agent: ag, ConversationID: conv.ID, Text: text, Lang: lang}, onDelta)
	if err != nil {
		return agent.Reply{}, false, err
	}
	r, wantsHuman := applyHandoff(r, settings, conv.Misses, lang)
	return r, wantsHuman, nil
}

// aiMessage is the AI's reply as stored: only while the AI still handles
// the conversation, counted as a miss when unanswered, with the wait for a
// human when the reply hands over, within the cap (a reply may be the one
// message past it: store.NewMessage.Fits), and with the LLM tokens it cost.
func (s *Service) aiMessage(visitor store.NewMessage, lang string, r agent.Reply, wantsHuman bool) store.NewMessage {
	return store.NewMessage{
		ConversationID: visitor.ConversationID, Role: domain.RoleAI, Text: r.Text, CreatedAt: s.now(),
		RequireMode: domain.ModeAI, Unanswered: r.Unanswered, SetWaiting: wantsHuman, MaxMessages: s.maxMessages,
		Tokens: r.Usage,
		// What the reply answers, for the knowledge gaps when it could
		// not (store.NewMessage.Question).
		Question: visitor.Text, Lang: lang,
	}
}

// applyHandoff adjusts an AI reply to the agent's handoff settings: with
// handoff off, no "Talk to a human" option is offered; with it on, the
// second miss in a row becomes the "a person has been asked" message, and
// the second result says a human should be asked.
func applyHandoff(r agent.Reply, s handoff.Settings, missesBefore int, lang string) (agent.Reply, bool) {
	if !s.Enabled {
		r.Options = slices.DeleteFunc(r.Options, handoff.AsksForHuman)
		if len(r.Options) == 0 {
			r.Options = nil
		}
		return r, false
	}
	if r.Unanswered && missesBefore+1 >= handoff.MissesBeforeHandoff {
		// The model's answer is replaced, but it was asked: what that
		// cost is stored with the message that replaces it.
		return agent.Reply{Text: s.Message(lang), Unanswered: true, Usage: r.Usage}, true
	}
	return r, false
}

// ask calls the responder within the AI timeout and turns its failures into
// the two errors the spec names. The cause is logged, never shown.
func (s *Service) ask(ctx context.Context, req agent.Request, onDelta func(string)) (agent.Reply, error) {
	visitor := ctx
	ctx, cancel := context.WithTimeout(ctx, s.aiTimeout)
	defer cancel()
	start := time.Now()
	reply, err := agent.RespondStream(ctx, s.responder, req, onDelta)
	switch {
	case err == nil && reply.Text == "":
		s.log.WarnContext(ctx, "AI returned an empty reply", "agent", req.Agent.ID)
		err = domain.ErrAIUnavailable
	case err == nil:
	case visitor.Err() != nil:
		// The visitor left (the request's context ended), which is no
		// failure of the AI's: the handler answers it as a closed request.
		err = visitor.Err()
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		s.log.WarnContext(ctx, "AI timed out", "agent", req.Agent.ID, "timeout", s.aiTimeout)
		err = domain.ErrAITimeout
	default:
		s.log.ErrorContext(ctx, "AI failed", "agent", req.Agent.ID, "err", err)
		err = domain.ErrAIUnavailable
	}
	s.observer.AIDone(time.Since(start), err)
	return reply, err
}

// conversation resolves the key and checks that the conversation belongs to
// its agent. Any mismatch is the spec's "conversation is invalid" (403).
func (s *Service) conversation(ctx context.Context, key, origin, id string) (domain.Agent, domain.Conversation, error) {
	ag, err := s.seenAgent(ctx, key, origin)
	if err != nil {
		return domain.Agent{}, domain.Conversation{}, err
	}
	conv, err := s.store.Conversation(ctx, id)
	if errors.Is(err, domain.ErrNotFound) || (err == nil && conv.AgentID != ag.ID) {
		return domain.Agent{}, domain.Conversation{}, domain.ErrConversationInvalid
	}
	if err != nil {
		return domain.Agent{}, domain.Conversation{}, err
	}
	return ag, conv, nil
}
