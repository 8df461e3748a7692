package storetest

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// RunSearch runs the inbox search's contract tests of three characters or
// more alone (Run runs them too). A store whose search has more than one
// way to find such matches (a text index for few matches, a scan for
// many) runs them once more with a store opened to take the other way.
func RunSearch(t *testing.T, open func(t *testing.T) store.Store) {
	for _, tt := range []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"Search", testSearch},
		{"SearchLanguages", testSearchLanguages},
		{"SearchForgetsDeleted", testSearchForgetsDeleted},
		{"SearchOrder", testSearchOrder},
		{"SearchPaging", testSearchPaging},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

// searchCase is a search and the conversations (by name) it finds.
type searchCase struct {
	search string
	want   []string
}

// checkSearches runs each search across pages of one, in the account
// and in every list the desk shows, and compares the conversations found.
func checkSearches(t *testing.T, s store.Store, accountID string, ids map[string]string, cases []searchCase) {
	t.Helper()
	for _, tt := range cases {
		var want []string
		for _, name := range tt.want {
			want = append(want, ids[name])
		}
		slices.Sort(want)
		got := searchAll(t, s, accountID, store.ConversationFilter{Search: tt.search, Limit: 1})
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("Search %q = %v, want %v", tt.search, got, want)
		}
		// The open ones (the desk's default list) are all of them here.
		got = searchAll(t, s, accountID, store.ConversationFilter{Search: tt.search, Status: domain.StatusOpen, Limit: 2})
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("Search %q among the open = %v, want %v", tt.search, got, want)
		}
	}
}

// testSearchLanguages: a substring anywhere, in any language, whatever the
// case, as store.Fold folds it; diacritics are letters of their own.
func testSearchLanguages(t *testing.T, s store.Store) {
	f := setup(t, s, many)
	other := setup(t, s, many)
	texts := map[string]string{
		"english":  "Our shipping partner delivers on Mondays",
		"romanian": "Livrarea în CHIȘINĂU durează două zile; ȘTIȚI adresa?",
		"russian":  "Доставка в ЁЛКИНО занимает НЕДЕЛЮ",
		"greek":    "Η ΟΔΟΣ ΕΙΝΑΙ ΚΛΕΙΣΤΗ",
		"kelvin":   "Temperature: 300 \u212a exactly",
		"quotes":   `He said "hello" and 'bye'`,
	}
	ids := map[string]string{}
	i := 0
	for _, name := range slices.Sorted(maps.Keys(texts)) {
		c := f.conversation(t, s, base.Add(time.Duration(i)*time.Minute))
		i++
		ids[name] = c.ID
		add(t, s, store.NewMessage{ConversationID: c.ID, Role: domain.RoleVisitor, Text: texts[name]})
	}
	// The same words in another account are never found from this one.
	oc := other.conversation(t, s, base)
	add(t, s, store.NewMessage{ConversationID: oc.ID, Role: domain.RoleVisitor, Text: strings.Join(slices.Collect(maps.Values(texts)), " ")})

	checkSearches(t, s, f.account.ID, ids, []searchCase{
		{"ipp", []string{"english"}},       // the middle of a word
		{"PING PART", []string{"english"}}, // across words
		{"delivers on mondays", []string{"english"}},
		{"shippingpartner", nil},
		{"chișinău", []string{"romanian"}},
		{"ChiȘinĂu", []string{"romanian"}},
		{"chisinau", nil}, // ș and ă are letters of their own, not s and a
		{"știți", []string{"romanian"}},
		{"ЁЛКИНО", []string{"russian"}},
		{"ёлкино", []string{"russian"}},
		{"елкино", nil},
		{"неделю", []string{"russian"}},
		{"οδός", nil},                        // ό is not ο
		{"οδος", []string{"greek"}},          // final sigma: ς, σ and Σ are one letter
		{"οδοσ", []string{"greek"}},          // ... whichever is typed
		{"ΕΙΝΑΙ κλειστη", []string{"greek"}}, // σ inside a word too
		{"300 k", []string{"kelvin"}},        // the Kelvin sign is a K
		{"300 K EXACTLY", []string{"kelvin"}},
		{`"hello"`, []string{"quotes"}}, // quotes are text, not query syntax
		{`d "h`, []string{"quotes"}},
		{`'bye'`, []string{"quotes"}},
		{"hello AND bye", nil},
		{"hel*", nil}, // nor is * a wildcard
	})
	if got := searchAll(t, s, other.account.ID, store.ConversationFilter{Search: "chișinău"}); !slices.Equal(got, []string{oc.ID}) {
		t.Errorf("the other account's search = %v, want only its own %s", got, oc.ID)
	}
}

// testSearchForgetsDeleted: a deleted conversation's messages (retention,
// a visitor's erasure) are never found again, and the messages written
// after them still are.
func testSearchForgetsDeleted(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	erased := f.conversation(t, s, base)
	add(t, s, store.NewMessage{ConversationID: erased.ID, Role: domain.RoleVisitor, Text: "my secret word is zanzibar", CreatedAt: base})
	purged := f.conversation(t, s, base.Add(time.Minute))
	add(t, s, store.NewMessage{ConversationID: purged.ID, Role: domain.RoleVisitor, Text: "the old code was quixotic-42", CreatedAt: base.Add(time.Minute)})
	kept := f.conversation(t, s, base.Add(48*time.Hour))
	add(t, s, store.NewMessage{ConversationID: kept.ID, Role: domain.RoleVisitor, Text: "nothing to hide", CreatedAt: base.Add(48 * time.Hour)})

	ids := map[string]string{"erased": erased.ID, "purged": purged.ID, "kept": kept.ID}
	checkSearches(t, s, f.account.ID, ids, []searchCase{
		{"zanzibar", []string{"erased"}},
		{"quixotic", []string{"purged"}},
		{"to hide", []string{"kept"}},
	})

	noErr(t, "DeleteVisitor", s.DeleteVisitor(ctx, f.account.ID, erased.VisitorID))
	n, err := s.PurgeConversations(ctx, f.account.ID, base.Add(24*time.Hour), 10)
	noErr(t, "PurgeConversations", err)
	if n != 1 {
		t.Fatalf("PurgeConversations deleted %d, want 1", n)
	}
	// A new conversation says the same words: only it is found.
	again := f.conversation(t, s, base.Add(72*time.Hour))
	ids["again"] = again.ID
	add(t, s, store.NewMessage{ConversationID: again.ID, Role: domain.RoleVisitor, Text: "zanzibar again", CreatedAt: base.Add(72 * time.Hour)})
	checkSearches(t, s, f.account.ID, ids, []searchCase{
		{"zanzibar", []string{"again"}},
		{"quixotic", nil},
		{"secret word", nil},
		{"to hide", []string{"kept"}},
	})
}

// testSearchShortWindow: a search shorter than store.TrigramMin looks
// through the newest store.ShortSearchWindow conversations of the list
// only; a longer one through all of them.
func testSearchShortWindow(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := setup(t, s, many)
	oldest := f.conversation(t, s, base)
	add(t, s, store.NewMessage{ConversationID: oldest.ID, Role: domain.RoleVisitor, Text: "€ and ¥ and µ"})
	newest := f.conversation(t, s, base.Add(time.Duration(store.ShortSearchWindow+1)*time.Minute))
	add(t, s, store.NewMessage{ConversationID: newest.ID, Role: domain.RoleVisitor, Text: "¥ at last"})
	// Between them, enough conversations to push the oldest out of the
	// window; resolving the newest leaves the oldest in the open list's.
	for i := 1; i < store.ShortSearchWindow; i++ {
		f.conversation(t, s, base.Add(time.Duration(i)*time.Minute))
	}
	ids := map[string]string{"oldest": oldest.ID, "newest": newest.ID}
	all := func(q string, st domain.Status) []string {
		got := searchAll(t, s, f.account.ID, store.ConversationFilter{Search: q, Status: st, Limit: 100})
		slices.Sort(got)
		return got
	}
	if got, want := all("¥", ""), []string{ids["newest"]}; !slices.Equal(got, want) {
		t.Errorf("short search %q = %v, want the newest only %v", "¥", got, want)
	}
	if got := all("€", ""); len(got) != 0 {
		t.Errorf("short search %q = %v, want none (the oldest is out of the window)", "€", got)
	}
	want := []string{ids["oldest"], ids["newest"]}
	slices.Sort(want)
	if got := all("¥ a", ""); !slices.Equal(got, want) {
		t.Errorf("search %q = %v, want both %v", "¥ a", got, want)
	}
	_, err := s.SetStatus(ctx, newest.ID, domain.StatusResolved)
	noErr(t, "SetStatus", err)
	if got := all("€", domain.StatusOpen); !slices.Equal(got, []string{ids["oldest"]}) {
		t.Errorf("short search %q among the open = %v, want the oldest (the window is the list's)", "€", got)
	}
}
