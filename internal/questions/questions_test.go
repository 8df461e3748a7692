package questions

import (
	"fmt"
	"slices"
	"testing"
)

func TestSame(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b Item
		want bool
	}{
		// The same words, other greetings, case and punctuation.
		{Item{"Where is my order?", "en"}, Item{"hi, where is my order??", "en"}, true},
		// Synonyms of the search and relatives of a stem.
		{Item{"How much does shipping cost?", "en"}, Item{"what is the delivery price", "en"}, true},
		{Item{"Cât costă livrarea?", "ro"}, Item{"cat costa transportul", "ro"}, true},
		{Item{"Сколько стоит доставка?", "ru"}, Item{"какая цена доставки", "ru"}, true},
		// One elaboration more, when the rest is matched by two words.
		{Item{"Can I bring my own wine?", "en"}, Item{"is it ok to bring our own bottle of wine", "en"}, true},
		// A different question on the same subject: each side asks
		// something the other does not.
		{Item{"How much does shipping cost?", "en"}, Item{"How long does shipping take?", "en"}, false},
		{Item{"Can I cancel my order?", "en"}, Item{"Can I cancel my subscription?", "en"}, false},
		// One side asks one thing more that is a subject of its own.
		{Item{"Is there parking?", "en"}, Item{"How much does parking cost?", "en"}, false},
		// Languages: the same words in other languages are never the
		// same question (a knowledge entry is written in one).
		{Item{"Shopify", "en"}, Item{"Shopify", "ro"}, false},
		// Nothing to compare.
		{Item{"?", "en"}, Item{"?", "en"}, false},
		{Item{"", ""}, Item{"", ""}, false},
	} {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%q, %q) = %v, want %v", c.a.Text, c.b.Text, got, c.want)
		}
		if got := Same(c.b, c.a); got != c.want {
			t.Errorf("Same(%q, %q) = %v, want %v (not symmetric)", c.b.Text, c.a.Text, got, c.want)
		}
	}
}

// TestSameSymmetric: Same(a, b) is Same(b, a) for every labelled pair of
// both sets, since GroupAll compares each pair one way only.
func TestSameSymmetric(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tuning.txt", "heldout.txt"} {
		for lang, pairs := range loadPairs(t, name) {
			for _, p := range pairs {
				a, b := Item{p.a, lang}, Item{p.b, lang}
				if similarityOf(a, b) != similarityOf(b, a) {
					t.Errorf("%s: similarity of %q and %q differs by order", lang, p.a, p.b)
				}
			}
		}
	}
}

func TestGroupAllShape(t *testing.T) {
	t.Parallel()
	items := []Item{
		{"Do you ship to Canada?", "en"},              // 0
		{"How long does delivery take?", "en"},        // 1
		{"hello, do you ship to Canada", "en"},        // 2
		{"Где мой заказ?", "ru"},                      // 3
		{"how long does delivery take??", "en"},       // 4
		{"Do you ship to canada? thanks", "en"},       // 5
		{"где мой заказ", "ru"},                       // 6
		{"Do you sell gift cards?", "en"},             // 7
		{"Cum îmi resetez parola?", "ro"},             // 8
		{"hi! where is my order, I ordered it", "en"}, // 9
		{"", "en"},                                 // 10
		{"cum imi resetez parola pe site", "ro"},   // 11
		{"Do you have a store in Chisinau?", "en"}, // 12
		{"Сколько стоит доставка в Италию?", "ru"},      // 13
		{"How much does shipping to Italy cost?", "en"}, // 14
	}
	groups := GroupAll(items)
	want := [][]int{{0, 2, 5}, {1, 4}, {3, 6}, {8, 11}, {7}, {9}, {10}, {12}, {13}, {14}}
	var got [][]int
	for _, g := range groups {
		got = append(got, g.Members)
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("groups %v, want %v (largest first, ties by first member)", got, want)
	}
	for _, g := range groups {
		if !slices.Contains(g.Members, g.Representative) {
			t.Errorf("representative %d is not a member of %v", g.Representative, g.Members)
		}
	}
	// The representative is the member that asks just the common
	// question: the one without a greeting or thanks, the shortest of
	// equals.
	if r := groups[0].Representative; r != 0 {
		t.Errorf("representative of %v is %d (%q), want 0", groups[0].Members, r, items[r].Text)
	}
	if r := groups[3].Representative; r != 8 {
		t.Errorf("representative of %v is %d (%q), want 8: the other adds \"pe site\"", groups[3].Members, r, items[r].Text)
	}
}

func TestGroupAllEmpty(t *testing.T) {
	t.Parallel()
	if g := GroupAll(nil); len(g) != 0 {
		t.Errorf("GroupAll(nil) = %v", g)
	}
}

// TestRepresentativeTypical: in a group grown from several phrasings, the
// representative is one using the words most members use.
func TestRepresentativeTypical(t *testing.T) {
	t.Parallel()
	items := []Item{
		{"is it ok to bring our own bottle of wine", "en"},
		{"Can I bring my own wine?", "en"},
		{"can i bring my own wine", "en"},
	}
	groups := GroupAll(items)
	if len(groups) != 1 {
		t.Fatalf("groups %v, want one", groups)
	}
	// 0 adds "bottle", which the others do not use; 2 is 1 without
	// its question mark, the shorter of two equals.
	if r := groups[0].Representative; r != 2 {
		t.Errorf("representative %d (%q), want 2", r, items[r].Text)
	}
}

// TestGroupAllIsSameClosure: GroupAll's groups are exactly the connected
// sets of Same over every pair, though it compares only candidates from
// its index: the index must never miss a pair Same would join. All the
// testdata's questions of a language at once, with the language given and
// unknown.
func TestGroupAllIsSameClosure(t *testing.T) {
	t.Parallel()
	for lang, list := range sentences(t) {
		for _, given := range []string{lang, ""} {
			items := make([]Item, len(list))
			for i, s := range list {
				items[i] = Item{s, given}
			}
			checkClosure(t, fmt.Sprintf("%s (given %q)", lang, given), items)
		}
	}
	// Long messages of several questions in any language, where the
	// comparison gives up early on most pairs.
	checkClosure(t, "long", longWorkload(t, 400))
}

// checkClosure fails unless GroupAll(items) are the connected sets of the
// exact similarity reaching the threshold over every pair. One vocabulary
// serves all pairs: a term's matches do not depend on the other terms
// known (TestSameSharedVocabulary).
func checkClosure(t *testing.T, name string, items []Item) {
	t.Helper()
	v := newVocabulary()
	qs := make([]question, len(items))
	for i, it := range items {
		qs[i] = analyse(v, it)
	}
	v.link()
	sets := newDisjointSets(len(items))
	for i := range items {
		for j := range i {
			if similarity(v, &qs[i], &qs[j]) >= threshold {
				sets.union(i, j)
			}
		}
	}
	want := make(map[int][]int)
	for i := range items {
		want[sets.find(i)] = append(want[sets.find(i)], i)
	}
	groups := GroupAll(items)
	if len(groups) != len(want) {
		t.Errorf("%s: %d groups, all pairs give %d", name, len(groups), len(want))
		return
	}
	for _, g := range groups {
		if w := want[sets.find(g.Members[0])]; !slices.Equal(g.Members, w) {
			t.Errorf("%s: group %v, all pairs give %v", name, g.Members, w)
		}
	}
}

// TestSameSharedVocabulary: the similarity of two questions analysed
// among many others (as GroupAll analyses them) is the one Same finds for
// the two alone.
func TestSameSharedVocabulary(t *testing.T) {
	t.Parallel()
	for lang, list := range sentences(t) {
		v := newVocabulary()
		qs := make([]question, len(list))
		for i, s := range list {
			qs[i] = analyse(v, Item{s, lang})
		}
		v.link()
		for i := 1; i < len(list); i++ {
			for _, j := range []int{i - 1, i / 2, 0} {
				shared := similarity(v, &qs[i], &qs[j])
				if alone := similarityOf(Item{list[i], lang}, Item{list[j], lang}); alone != shared {
					t.Errorf("%s: %q and %q: %v alone, %v among others", lang, list[i], list[j], alone, shared)
				}
			}
		}
	}
}

// TestGroupAllComparesFew: grouping 5,000 questions compares a small share
// of the 12.5 million pairs (the index and the skipping of pairs already
// joined at work), and a question that adds a common subject word to every
// question does not make every pair a candidate.
func TestGroupAllComparesFew(t *testing.T) {
	t.Parallel()
	items := workload(t, 5000, 1)
	const pairs = 5000 * 4999 / 2
	if _, compared := groupAll(items); compared > pairs/100 {
		t.Errorf("compared %d pairs of %d, want under 1%%", compared, pairs)
	}
	prefix := map[string]string{"en": "delivery: ", "ro": "livrare: ", "ru": "доставка: "}
	for i := range items {
		items[i].Text = prefix[items[i].Lang] + items[i].Text
	}
	if _, compared := groupAll(items); compared > pairs/20 {
		t.Errorf("with a shared word: compared %d pairs of %d, want under 5%%", compared, pairs)
	}
}

func TestTextLang(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, lang, want string }{
		{"Где мой заказ?", "en", "ru"},
		{"Где мой заказ?", "", "ru"},
		{"where is my order", "", "en"},
		{"cat costa livrarea in chisinau", "", "ro"},
		{"Cât costă livrarea?", "", "ro"},
		{"cat costa livrarea", "ru", "ro"},
		{"where is my order", "ru", "en"},
		{"where is my order", "ro", "ro"},     // the conversation's language stands between the Latin ones
		{"Ce dimensiuni are masa?", "", "ro"}, // "are" is Romanian too
		{"licenta merge pe doua calculatoare", "", "ro"},
		{"Primesc bon fiscal?", "", "ro"},
		{"Programul merge pe Mac?", "", "ro"},
		{"a useful and careful answer please", "", "en"},
		{"12345", "en", "en"},
		{"12345", "", ""},
		{"Wo ist meine Bestellung?", "de", "en"}, // no stemmer for German: English rules, as the search
	} {
		if got := textLang(c.text, c.lang); got != c.want {
			t.Errorf("textLang(%q, %q) = %q, want %q", c.text, c.lang, got, c.want)
		}
	}
}

// FuzzSame: any two texts compare without panicking, the same either way
// round, and a text is the same as itself whenever it has a word to
// compare. GroupAll agrees with Same on the two.
func FuzzSame(f *testing.F) {
	f.Add("Where is my order?", "hi, where is my order??", "en")
	f.Add("Cât costă livrarea?", "cat costa transportul", "")
	f.Add("Где мой заказ?", "где мой закз", "ru")
	f.Add("", "12 34", "de")
	f.Fuzz(func(t *testing.T, a, b, lang string) {
		x, y := Item{a, lang}, Item{b, lang}
		same := Same(x, y)
		if same != Same(y, x) {
			t.Fatalf("Same(%q, %q) differs by order", a, b)
		}
		if groups := GroupAll([]Item{x, y}); (len(groups) == 1) != same {
			t.Fatalf("GroupAll(%q, %q) = %v, Same = %v", a, b, groups, same)
		}
		v := newVocabulary()
		q := analyse(v, x)
		if q.weight > 0 && !Same(x, x) {
			t.Fatalf("%q is not the same as itself", a)
		}
	})
}
