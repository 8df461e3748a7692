// Package storetest is the contract every store.Store implementation must
// pass. It uses only the store.Store interface, so the same tests run
// against SQLite and PostgreSQL:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { ... })
//	}
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

// Run runs the contract suite. open must return a fresh, empty store for
// each call; the caller registers its cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Ping", testPing},
		{"Accounts", testAccounts},
		{"AccountLookups", testAccountLookups},
		{"Limits", testLimits},
		{"UsageThresholds", testUsageThresholds},
		{"UsageThresholdsConcurrent", testUsageThresholdsConcurrent},
		{"APITokens", testAPITokens},
		{"Agents", testAgents},
		{"AgentConfig", testAgentConfig},
		{"UpdateAgent", testUpdateAgent},
		{"Keys", testKeys},
		{"RotateKey", testRotateKey},
		{"RotateKeyConcurrent", testRotateKeyConcurrent},
		{"AccountIsolation", testAccountIsolation},
		{"CreateConversation", testCreateConversation},
		{"QuotaConcurrent", testQuotaConcurrent},
		{"SpendCap", testSpendCap},
		{"Periods", testPeriods},
		{"Pagination", testPagination},
		{"PageLimits", testPageLimits},
		{"Filters", testFilters},
		{"BadCursor", testBadCursor},
		{"SetMode", testSetMode},
		{"Messages", testMessages},
		{"AddExchange", testAddExchange},
		{"Feedback", testFeedback},
		{"FeedbackConcurrent", testFeedbackConcurrent},
		{"PollState", testPollState},
		{"ModeChanged", testModeChanged},
		{"OperatorTakeover", testOperatorTakeover},
		{"MessagesAfter", testMessagesAfter},
		{"LatestMessages", testLatestMessages},
		{"MessagePageLimits", testMessagePageLimits},
		{"MessageCap", testMessageCap},
		{"MessageCapExchange", testMessageCapExchange},
		{"MessageCapConcurrent", testMessageCapConcurrent},
		{"Unicode", testUnicode},
		{"Usage", testUsage},
		{"Tokens", testTokens},
		{"KnowledgeItems", testKnowledgeItems},
		{"KnowledgeLimits", testKnowledgeLimits},
		{"KnowledgeLimitsConcurrent", testKnowledgeLimitsConcurrent},
		{"AgentLimit", testAgentLimit},
		{"AgentVersion", testAgentVersionStrictlyIncreases},
		{"DeleteUserReleasesConversations", testDeleteUserReleasesConversations},
		{"WaitingAndMisses", testWaitingAndMisses},
		{"AccountOwner", testAccountOwner},
		{"Users", testUsers},
		{"SetPassword", testSetPassword},
		{"DeleteUser", testDeleteUser},
		{"DeleteOwnersConcurrent", testDeleteOwnersConcurrent},
		{"Sessions", testSessions},
		{"APITokenList", testAPITokenList},
		{"TakeOver", testTakeOver},
		{"TakeOverRace", testTakeOverRace},
		{"Search", testSearch},
		{"SearchLanguages", testSearchLanguages},
		{"SearchForgetsDeleted", testSearchForgetsDeleted},
		{"SearchShortWindow", testSearchShortWindow},
		{"SearchOrder", testSearchOrder},
		{"SearchPaging", testSearchPaging},
		{"ConversationsPerDay", testConversationsPerDay},
		{"ReplyAssigns", testReplyAssigns},
		{"BadText", testBadText},
		{"ConversationsCreated", testConversationsCreated},
		{"Sources", testSources},
		{"SourcePages", testSourcePages},
		{"SourceReasons", testSourceReasons},
		{"DeleteSource", testDeleteSource},
		{"DueSources", testDueSources},
		{"Vectors", testVectors},
		{"Visitors", testVisitors},
		{"VisitorDataComplete", testVisitorDataComplete},
		{"VisitorErasureKeepsUsage", testVisitorErasureKeepsUsage},
		{"AuditLog", testAuditLog},
		{"Retention", testRetention},
		{"Origins", testOrigins},
		{"VisitorDetails", testVisitorDetails},
		{"ReadMarks", testReadMarks},
		{"Webhooks", testWebhooks},
		{"WebhookDeliveries", testWebhookDeliveries},
		{"WebhookLimitConcurrent", testWebhookLimitConcurrent},
		{"IdentitySecrets", testIdentitySecrets},
		{"ConversationIdentity", testConversationIdentity},
		{"DeskStatus", testDeskStatus},
		{"DeskAssign", testDeskAssign},
		{"DeskPresence", testDeskPresence},
		{"DeskAutoAssign", testDeskAutoAssign},
		{"DeskAutoAssignConcurrent", testDeskAutoAssignConcurrent},
		{"CannedReplies", testCannedReplies},
		{"CannedLimitConcurrent", testCannedLimitConcurrent},
		{"Notes", testNotes},
		{"Offline", testOffline},
		{"ActivityOrder", testActivityOrder},
		{"ActivityPaging", testActivityPaging},
		{"WaitingSince", testWaitingSince},
		{"InsightsReport", testInsightsReport},
		{"InsightsQuestions", testInsightsQuestions},
		{"OperatorAnswers", testOperatorAnswers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each has a store of its own
			tt.fn(t, open(t))
		})
	}
}

// base is a fixed instant in the middle of a month, so periods are known.
var base = time.Date(2025, time.March, 10, 12, 0, 0, 0, time.UTC)

// fixture is an account with one agent, the usual starting point.
type fixture struct {
	account domain.Account
	agent   domain.Agent
	key     string
}

func newAccount(t *testing.T, s store.Store, l domain.Limits) domain.Account {
	t.Helper()
	a, err := s.CreateAccount(t.Context(), store.NewAccount{
		Email:        secret.ID("u", 6) + "@example.com",
		Name:         "Owner",
		PasswordHash: "hash",
		Limits:       l,
	})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

func newAgent(t *testing.T, s store.Store, accountID string) (domain.Agent, string) {
	t.Helper()
	key := secret.WidgetKey()
	a, err := s.CreateAgent(t.Context(), store.NewAgent{AccountID: accountID, ChatbotName: "Bot", Key: key})
	if err != nil {
		t.Fatalf("CreateAgent: %v", err)
	}
	return a, key
}

func setup(t *testing.T, s store.Store, l domain.Limits) fixture {
	t.Helper()
	acc := newAccount(t, s, l)
	ag, key := newAgent(t, s, acc.ID)
	return fixture{account: acc, agent: ag, key: key}
}

func (f fixture) conversation(t *testing.T, s store.Store, at time.Time) domain.Conversation {
	t.Helper()
	c, err := s.CreateConversation(t.Context(), f.newConversation(at))
	if err != nil {
		t.Fatalf("CreateConversation: %v", err)
	}
	return c
}

func (f fixture) newConversation(at time.Time) store.NewConversation {
	return store.NewConversation{
		ID:        secret.ConversationID(),
		AgentID:   f.agent.ID,
		AccountID: f.account.ID,
		VisitorID: secret.VisitorID(),
		PageURL:   "https://example.com/",
		CreatedAt: at,
	}
}

// many is a limit no test reaches.
var many = domain.Limits{MonthlyConversations: 1 << 20}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// sameTime checks a stored time: UTC, and equal to want at the millisecond
// precision stores promise.
func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if got.Location() != time.UTC {
		t.Errorf("%s: location %v, want UTC", what, got.Location())
	}
	if d := got.Sub(want); d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// stampedNow checks a time a store set to "now": in UTC, at or after
// before (which the store's millisecond precision may round down) and at
// or before after. before and after bracket the call, so how long it took
// never matters.
func stampedNow(t *testing.T, what string, got, before, after time.Time) {
	t.Helper()
	if got.Location() != time.UTC {
		t.Errorf("%s: location %v, want UTC", what, got.Location())
	}
	if got.Before(before.Truncate(time.Millisecond)) || got.After(after) {
		t.Errorf("%s: %v, want between %v and %v", what, got, before, after)
	}
}

func testPing(t *testing.T, s store.Store) {
	noErr(t, "Ping", s.Ping(t.Context()))
}

func usage(t *testing.T, s store.Store, accountID, period string) domain.Usage {
	t.Helper()
	u, err := s.Usage(context.Background(), accountID, period)
	noErr(t, "Usage", err)
	return u
}
