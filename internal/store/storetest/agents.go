package storetest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/secret"
	"parley/internal/store"
)

var sampleKnowledge = []domain.KnowledgeEntry{
	{Question: "Opening hours?", Answer: "9 to 5", Lang: "en"},
	{Question: "Часы работы?", Answer: "с 9 до 17", Lang: "ru"},
	{Question: "Price?", Answer: "Free"},
}

// sameEntries compares knowledge ignoring the ids the store assigns, and
// checks those ids are set and distinct.
func sameEntries(t *testing.T, got, want []domain.KnowledgeEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("knowledge has %d entries, want %d: %+v", len(got), len(want), got)
	}
	seen := map[string]bool{}
	for i := range got {
		if got[i].ID == "" || seen[got[i].ID] {
			t.Errorf("entry %d: id %q empty or repeated", i, got[i].ID)
		}
		seen[got[i].ID] = true
		g, w := got[i], want[i]
		g.ID, w.ID = "", ""
		if w.Kind == "" {
			w.Kind = domain.KindQA // the default kind is stored explicitly
		}
		if g != w {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
}

func testAgents(t *testing.T, s store.Store) {
	ctx := t.Context()
	acc := newAccount(t, s, domain.DefaultLimits)
	before := time.Now()
	key := secret.WidgetKey()
	a, err := s.CreateAgent(ctx, store.NewAgent{
		AccountID: acc.ID, ChatbotName: "Helper", Knowledge: sampleKnowledge, Key: key,
	})
	after := time.Now()
	noErr(t, "CreateAgent", err)
	if a.ID == "" || a.AccountID != acc.ID || a.ChatbotName != "Helper" {
		t.Errorf("CreateAgent = %+v", a)
	}
	if string(a.Config.JSON()) != "{}" {
		t.Errorf("nil Config stored as %s, want {}", a.Config.JSON())
	}
	stampedNow(t, "CreatedAt", a.CreatedAt, before, after)
	stampedNow(t, "UpdatedAt", a.UpdatedAt, before, after)

	got, err := s.Agent(ctx, acc.ID, a.ID)
	noErr(t, "Agent", err)
	if got.ID != a.ID || got.ChatbotName != a.ChatbotName || string(got.Config.JSON()) != "{}" ||
		!got.CreatedAt.Equal(a.CreatedAt) || !got.UpdatedAt.Equal(a.UpdatedAt) {
		t.Errorf("Agent = %+v, want %+v", got, a)
	}
	_, err = s.Agent(ctx, acc.ID, secret.AgentID())
	wantErr(t, "Agent missing", err, domain.ErrNotFound)

	kb, err := s.Knowledge(ctx, a.ID)
	noErr(t, "Knowledge", err)
	sameEntries(t, kb, sampleKnowledge)

	keys, err := s.Keys(ctx, acc.ID, a.ID)
	noErr(t, "Keys", err)
	if len(keys) != 1 || keys[0].Key != key || !keys[0].Active || keys[0].AgentID != a.ID || keys[0].AccountID != acc.ID {
		t.Errorf("Keys = %+v, want the first key, active", keys)
	}
	byKey, err := s.AgentByKey(ctx, key)
	noErr(t, "AgentByKey", err)
	if byKey.ID != a.ID {
		t.Errorf("AgentByKey = %s, want %s", byKey.ID, a.ID)
	}

	// Agents lists the account's own agents, oldest first.
	b, _ := newAgent(t, s, acc.ID)
	c, _ := newAgent(t, s, acc.ID)
	other := newAccount(t, s, domain.DefaultLimits)
	newAgent(t, s, other.ID)
	list, err := s.Agents(ctx, acc.ID)
	noErr(t, "Agents", err)
	var ids []string
	for _, x := range list {
		ids = append(ids, x.ID)
	}
	if want := []string{a.ID, b.ID, c.ID}; !slices.Equal(ids, want) {
		t.Errorf("Agents = %v, want %v", ids, want)
	}

	_, err = s.CreateAgent(ctx, store.NewAgent{AccountID: acc.ID, ChatbotName: "dup", Key: key})
	wantErr(t, "CreateAgent with a taken key", err, domain.ErrConflict)
}

func testAgentConfig(t *testing.T, s store.Store) {
	ctx := t.Context()
	acc := newAccount(t, s, domain.DefaultLimits)
	tests := []struct {
		name   string
		config json.RawMessage
		want   string
	}{
		{"nil", nil, `{}`},
		{"empty", json.RawMessage{}, `{}`},
		{"compact", json.RawMessage(`{"a":1}`), `{"a":1}`},
		{"spaced", json.RawMessage("{ \"greeting\" : \"Hi\",\n \"n\": [1, 2] }"), `{"greeting":"Hi","n":[1,2]}`},
		{"unicode", json.RawMessage(`{"greeting": "Привет 👋"}`), `{"greeting":"Привет 👋"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := s.CreateAgent(ctx, store.NewAgent{
				AccountID: acc.ID, ChatbotName: "C", Config: tt.config, Key: secret.WidgetKey(),
			})
			noErr(t, "CreateAgent", err)
			if string(a.Config.JSON()) != tt.want {
				t.Errorf("CreateAgent Config = %s, want %s", a.Config.JSON(), tt.want)
			}
			got, err := s.Agent(ctx, acc.ID, a.ID)
			noErr(t, "Agent", err)
			if string(got.Config.JSON()) != tt.want {
				t.Errorf("Agent Config = %s, want %s", got.Config.JSON(), tt.want)
			}
		})
	}
}

func testUpdateAgent(t *testing.T, s store.Store) {
	ctx := t.Context()
	acc := newAccount(t, s, domain.DefaultLimits)
	a, err := s.CreateAgent(ctx, store.NewAgent{
		AccountID: acc.ID, ChatbotName: "Old", Config: json.RawMessage(`{"x":1}`),
		Knowledge: sampleKnowledge, Key: secret.WidgetKey(),
	})
	noErr(t, "CreateAgent", err)

	name := "New"
	replaced := []domain.KnowledgeEntry{{Question: "Q", Answer: "A", Lang: "de"}}
	empty := []domain.KnowledgeEntry{}
	tests := []struct {
		name       string
		patch      store.AgentPatch
		wantName   string
		wantConfig string
		wantKB     []domain.KnowledgeEntry
	}{
		{"nothing", store.AgentPatch{}, "Old", `{"x":1}`, sampleKnowledge},
		{"name", store.AgentPatch{ChatbotName: &name}, "New", `{"x":1}`, sampleKnowledge},
		{"config", store.AgentPatch{Config: json.RawMessage(`{ "y": 2 }`)}, "New", `{"y":2}`, sampleKnowledge},
		{"knowledge", store.AgentPatch{Knowledge: &replaced}, "New", `{"y":2}`, replaced},
		{"knowledge emptied", store.AgentPatch{Knowledge: &empty}, "New", `{"y":2}`, nil},
	}
	prev := a.UpdatedAt
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.UpdateAgent(ctx, acc.ID, a.ID, tt.patch)
			noErr(t, "UpdateAgent", err)
			if got.ChatbotName != tt.wantName || string(got.Config.JSON()) != tt.wantConfig {
				t.Errorf("UpdateAgent = %q %s, want %q %s", got.ChatbotName, got.Config.JSON(), tt.wantName, tt.wantConfig)
			}
			if got.UpdatedAt.Before(prev) || !got.CreatedAt.Equal(a.CreatedAt) {
				t.Errorf("UpdatedAt %v (was %v), CreatedAt %v (was %v)", got.UpdatedAt, prev, got.CreatedAt, a.CreatedAt)
			}
			prev = got.UpdatedAt
			read, err := s.Agent(ctx, acc.ID, a.ID)
			noErr(t, "Agent", err)
			if read.ChatbotName != tt.wantName || string(read.Config.JSON()) != tt.wantConfig || !read.UpdatedAt.Equal(got.UpdatedAt) {
				t.Errorf("Agent after update = %+v", read)
			}
			kb, err := s.Knowledge(ctx, a.ID)
			noErr(t, "Knowledge", err)
			sameEntries(t, kb, tt.wantKB)
		})
	}

	// UpdatedAt moves forward once time passes.
	time.Sleep(5 * time.Millisecond)
	got, err := s.UpdateAgent(ctx, acc.ID, a.ID, store.AgentPatch{ChatbotName: &name})
	noErr(t, "UpdateAgent", err)
	if !got.UpdatedAt.After(prev) {
		t.Errorf("UpdatedAt %v not after %v", got.UpdatedAt, prev)
	}

	_, err = s.UpdateAgent(ctx, acc.ID, secret.AgentID(), store.AgentPatch{ChatbotName: &name})
	wantErr(t, "UpdateAgent missing", err, domain.ErrNotFound)
}

func testKeys(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, domain.DefaultLimits)
	acc, ag := f.account.ID, f.agent.ID

	second := secret.WidgetKey()
	k, err := s.CreateKey(ctx, acc, ag, second)
	noErr(t, "CreateKey", err)
	if k.Key != second || k.AgentID != ag || k.AccountID != acc || !k.Active || k.CreatedAt.IsZero() {
		t.Errorf("CreateKey = %+v", k)
	}
	_, err = s.CreateKey(ctx, acc, ag, second)
	wantErr(t, "CreateKey duplicate", err, domain.ErrConflict)
	_, err = s.CreateKey(ctx, acc, secret.AgentID(), secret.WidgetKey())
	wantErr(t, "CreateKey missing agent", err, domain.ErrNotFound)
	_, err = s.Keys(ctx, acc, secret.AgentID())
	wantErr(t, "Keys missing agent", err, domain.ErrNotFound)

	keys, err := s.Keys(ctx, acc, ag)
	noErr(t, "Keys", err)
	if len(keys) != 2 || keys[0].Key != f.key || keys[1].Key != second {
		t.Errorf("Keys = %+v, want [%s %s]", keys, f.key, second)
	}

	// Deactivating one key leaves the other working.
	off, err := s.SetKeyActive(ctx, acc, f.key, false)
	noErr(t, "SetKeyActive false", err)
	if off.Active || off.Key != f.key || off.AgentID != ag {
		t.Errorf("SetKeyActive false = %+v", off)
	}
	_, err = s.AgentByKey(ctx, f.key)
	wantErr(t, "AgentByKey inactive", err, domain.ErrKeyInvalid)
	if a, err := s.AgentByKey(ctx, second); err != nil || a.ID != ag {
		t.Errorf("AgentByKey other key = %v, %v", a.ID, err)
	}
	keys, err = s.Keys(ctx, acc, ag)
	noErr(t, "Keys", err)
	if len(keys) != 2 || keys[0].Active || !keys[1].Active {
		t.Errorf("Keys after deactivation = %+v", keys)
	}

	on, err := s.SetKeyActive(ctx, acc, f.key, true)
	noErr(t, "SetKeyActive true", err)
	if !on.Active {
		t.Errorf("SetKeyActive true = %+v", on)
	}
	if a, err := s.AgentByKey(ctx, f.key); err != nil || a.ID != ag {
		t.Errorf("AgentByKey reactivated = %v, %v", a.ID, err)
	}

	_, err = s.AgentByKey(ctx, secret.WidgetKey())
	wantErr(t, "AgentByKey unknown", err, domain.ErrKeyInvalid)
	_, err = s.SetKeyActive(ctx, acc, secret.WidgetKey(), false)
	wantErr(t, "SetKeyActive unknown", err, domain.ErrNotFound)
}

// testAccountIsolation: another account's rows look missing, and nothing
// changes through them.
func testAccountIsolation(t *testing.T, s store.Store) {
	ctx := t.Context()
	mine := setup(t, s, many)
	theirs := setup(t, s, many)
	name := "hijacked"

	tests := []struct {
		name string
		call func() error
	}{
		{"Agent", func() error { _, err := s.Agent(ctx, mine.account.ID, theirs.agent.ID); return err }},
		{"UpdateAgent", func() error {
			_, err := s.UpdateAgent(ctx, mine.account.ID, theirs.agent.ID, store.AgentPatch{ChatbotName: &name})
			return err
		}},
		{"CreateKey", func() error {
			_, err := s.CreateKey(ctx, mine.account.ID, theirs.agent.ID, secret.WidgetKey())
			return err
		}},
		{"Keys", func() error { _, err := s.Keys(ctx, mine.account.ID, theirs.agent.ID); return err }},
		{"SetKeyActive", func() error { _, err := s.SetKeyActive(ctx, mine.account.ID, theirs.key, false); return err }},
		{"CreateConversation", func() error {
			n := theirs.newConversation(base)
			n.AccountID = mine.account.ID
			_, err := s.CreateConversation(ctx, n)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, tt.name, tt.call(), domain.ErrNotFound)
		})
	}

	a, err := s.Agent(ctx, theirs.account.ID, theirs.agent.ID)
	noErr(t, "Agent", err)
	if a.ChatbotName == name {
		t.Error("UpdateAgent changed another account's agent")
	}
	if _, err := s.AgentByKey(ctx, theirs.key); err != nil {
		t.Errorf("SetKeyActive changed another account's key: %v", err)
	}
	keys, err := s.Keys(ctx, theirs.account.ID, theirs.agent.ID)
	noErr(t, "Keys", err)
	if len(keys) != 1 {
		t.Errorf("CreateKey added a key to another account's agent: %+v", keys)
	}
	if u := usage(t, s, mine.account.ID, "2025-03"); u.Conversations != 0 {
		t.Errorf("refused conversation counted: %+v", u)
	}
	list, err := s.Agents(ctx, mine.account.ID)
	noErr(t, "Agents", err)
	if len(list) != 1 || list[0].ID != mine.agent.ID {
		t.Errorf("Agents = %+v, want only the own agent", list)
	}
}
