// Package chat holds the rules of a conversation: starting one against the
// quota, storing every visitor message before anything else can fail,
// letting the AI answer only while no human handles the conversation, and
// the operator's takeover, reply and release. HTTP handlers (widgetapi,
// manageapi) only decode requests, call these methods and encode results.
package chat

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"parley/internal/agent"
	"parley/internal/audit"
	"parley/internal/initlimit"
	"parley/internal/notify"
	"parley/internal/store"
	"parley/internal/surge"
)

// Store is what the chat reads and writes: the agent behind a widget key,
// conversations and their messages.
type Store interface {
	store.Keys
	store.Conversations
	store.Messages
	store.Identities
	store.VisitorDetails
	store.Offline
	store.Feedback
}

// Service is the chat logic over a store, a responder and a notifier.
type Service struct {
	store     Store
	responder agent.Responder
	notifier  notify.Notifier
	aiTimeout time.Duration
	now       func() time.Time
	log       *slog.Logger
	stopping  chan struct{}
	stopOnce  sync.Once
	observer  Observer
	waiting   atomic.Int64  // long polls waiting now
	longReads chan struct{} // slots for long polls' store reads (longpoll.go)
	limits    *initlimit.Limiter
	surges    *surge.Detector
	origins   OriginRecorder // nil: origins are not recorded
	// maxMessages caps each conversation's messages (store.NewMessage.Fits).
	maxMessages int
	audit       *audit.Service // takeovers, releases, operator replies; nil: none
	emitter     Emitter        // nil: no events (events.go)
	offline     Offline        // nil: none (offline.go)
	desk        Desk           // nil: no desk (desk.go)
	typing      *Typing        // who types now (typing.go)
}

// Observer is told how AI calls and quota checks go, for metrics.
type Observer interface {
	AIDone(d time.Duration, err error) // err is nil, ErrAITimeout or ErrAIUnavailable
	QuotaRefused(reason string)        // "quota" or "spend_cap"
}

type nopObserver struct{}

func (nopObserver) AIDone(time.Duration, error) {}
func (nopObserver) QuotaRefused(string)         {}

// Options configure a Service. Store, Responder and Notifier are required.
type Options struct {
	Store     Store
	Responder agent.Responder
	Notifier  notify.Notifier
	AITimeout time.Duration    // default 30s
	Now       func() time.Time // default time.Now
	Logger    *slog.Logger     // default slog.Default()
	Observer  Observer         // default: none
	// InitLimits applies the agents' hourly limits on new conversations
	// per address and per visitor; nil: none. InitSurges is told of each
	// new conversation, for the surge alert; nil: none.
	InitLimits *initlimit.Limiter
	InitSurges *surge.Detector
	// MaxMessages caps the messages of one conversation; past it chat
	// answers domain.ErrConversationFull. Default DefaultMaxMessages.
	MaxMessages int
	// Audit records takeovers, releases and operator replies in the
	// account's audit log; nil: none.
	Audit *audit.Service
	// Origins is told the Origin of each init and chat (origins.Recorder);
	// nil: none.
	Origins OriginRecorder
	// Emitter is told of conversations started, messages, waits,
	// takeovers and releases (the account's webhooks); nil: no one.
	Emitter Emitter
	// Offline is told of polls, waits and operator replies, and says
	// whether a visitor asking for a person is offline (offline.Service,
	// issue 19); nil: none.
	Offline Offline
	// Desk is told of visitor messages and waits (internal/desk: reopen
	// and auto-assign); nil: none.
	Desk Desk
}

// DefaultMaxMessages is the default cap on one conversation's messages:
// far more than a real chat needs (about 500 questions and answers), and
// few enough that one conversation cannot take the server's memory or
// disk.
const DefaultMaxMessages = 1000

func New(o Options) *Service {
	s := &Service{
		store:     o.Store,
		responder: o.Responder,
		notifier:  o.Notifier,
		aiTimeout: o.AITimeout,
		now:       o.Now,
		log:       o.Logger,
		stopping:  make(chan struct{}),
		observer:  o.Observer,
		longReads: make(chan struct{}, longPollReaders),

		maxMessages: o.MaxMessages,
		origins:     o.Origins,
		emitter:     o.Emitter,
		offline:     o.Offline,
		desk:        o.Desk,
	}
	if s.maxMessages <= 0 {
		s.maxMessages = DefaultMaxMessages
	}
	s.limits, s.surges = o.InitLimits, o.InitSurges
	s.audit = o.Audit
	if s.aiTimeout <= 0 {
		s.aiTimeout = 30 * time.Second
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.typing = NewTyping(s.now)
	if s.notifier != nil { // required, but a test of one rule may leave it out
		s.notifier.OnHint(typingHint, s.typing.applyHint)
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.observer == nil {
		s.observer = nopObserver{}
	}
	return s
}

// Stop makes waiting long polls return at once, so a graceful shutdown does
// not wait for them. Call it when the server starts shutting down; later
// calls do nothing.
func (s *Service) Stop() { s.stopOnce.Do(func() { close(s.stopping) }) }

// Waiting is the number of long polls waiting now (a metric, and a way for
// tests to know a poll is parked without sleeping).
func (s *Service) Waiting() int { return int(s.waiting.Load()) }

// AccountTopic is the notifier topic for everything in an account (the
// dashboard's inbox listens to it); a conversation's own topic is its id.
func AccountTopic(accountID string) string { return "account:" + accountID }

const teamTopicPrefix = "team:"

// TeamTopic is the notifier topic for what only the team sees of a
// conversation: its private notes and the visitor typing. The dashboard's
// conversation page listens to it besides the conversation's own topic;
// the visitor's long poll does not, so those changes do not wake it for
// nothing.
func TeamTopic(conversationID string) string { return teamTopicPrefix + conversationID }

// changed wakes whoever waits on the conversation (the visitor's long poll,
// an operator's open conversation) and on its account (the inbox).
func (s *Service) changed(accountID, conversationID string) {
	s.notifier.Publish(conversationID)
	s.notifier.Publish(AccountTopic(accountID))
}
