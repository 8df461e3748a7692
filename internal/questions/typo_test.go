package questions

import "testing"

func TestOneEdit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"password", "pasword", true},   // dropped
		{"password", "passsword", true}, // added
		{"password", "passwprd", true},  // changed
		{"password", "pssaword", false}, // two edits
		{"password", "psasword", true},  // swapped
		{"password", "password", false}, // the same
		{"доставк", "достовк", true},
		{"deliver", "deliveri", true}, // a letter added at the end
		{"cost", "cast", false},       // too short to tell a typo from another word
		{"parcel", "pracel", true},
	} {
		for _, ab := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			if got := oneEdit([]rune(ab[0]), []rune(ab[1])); got != c.want {
				t.Errorf("oneEdit(%q, %q) = %v, want %v", ab[0], ab[1], got, c.want)
			}
		}
	}
}

func TestSameWithTypos(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b Item }{
		{Item{"How do I reset my password?", "en"}, Item{"how do i reset my pasword", "en"}},
		{Item{"Where can I download my invoice?", "en"}, Item{"where can i downlaod my invoice", "en"}},
		{Item{"Как отследить посылку?", "ru"}, Item{"как отследить пасылку", "ru"}},
		{Item{"Cum vă contactez pentru o reclamație?", "ro"}, Item{"cum va contactez pentru o reclmaatie", "ro"}},
		{Item{"Care este politica de confidențialitate?", "ro"}, Item{"care e politica de confidentialitaet", "ro"}},
	} {
		if !Same(c.a, c.b) {
			t.Errorf("Same(%q, %q) = false, want true (a typo)", c.a.Text, c.b.Text)
		}
		if groups := GroupAll([]Item{c.a, c.b}); len(groups) != 1 {
			t.Errorf("GroupAll(%q, %q) = %v, want one group", c.a.Text, c.b.Text, groups)
		}
	}
}
