package retrieval

import (
	"slices"
	"testing"
)

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Livrării", "livrarii"},
		{"ȘȚĂÂÎ șțăâî", "staai staai"},
		{"şţ ŞŢ", "st st"},               // cedilla variants
		{"s\u0326t\u0326a\u0306", "sta"}, // decomposed: combining marks dropped
		{"Ещё ЁЛКА", "еще елка"},
		{"Café Müller Łódź", "cafe muller lodz"},
		{"24/7", "24/7"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Open 24/7, 9:00-17:30!", []string{"open", "24/7", "9:00-17:30"}},
		{"Send an e-mail: support@shop.example", []string{"send", "an", "email", "support", "shop", "example"}},
		{"Don't worry, it's free", []string{"dont", "worry", "its", "free"}},
		{"s-a întâmplat într-o zi", []string{"intamplat", "intr", "zi"}},
		{"50EUR or 3.5 kg", []string{"50", "eur", "or", "3.5", "kg"}},
		{"Доставка в Кишинёв", []string{"доставка", "кишинев"}},
		{"Wi-Fi", []string{"wi", "fi"}},
		{"  ", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, tok := range tokenize(tt.in) {
			got = append(got, tok.word)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAnalyzeStopWords(t *testing.T) {
	tests := []struct {
		text, lang string
		want       []string
	}{
		{"Hello, I would like to know how much the shipping is", "en", []string{"ship"}},
		{"Bună ziua, vreau să știu cât costă livrarea", "ro", []string{"cost", "livr"}},
		{"Здравствуйте, подскажите, сколько стоит доставка?", "ru", []string{"стоимост", "доставк"}},
		// Cyrillic words use Russian rules whatever the text's language.
		{"доставка и оплата", "en", []string{"доставк", "оплат"}},
		{"???", "en", nil},
	}
	for _, tt := range tests {
		if got := Analyze(tt.text, tt.lang); !slices.Equal(got, tt.want) {
			t.Errorf("Analyze(%q, %s) = %q, want %q", tt.text, tt.lang, got, tt.want)
		}
	}
}

// TestStemFamilies checks that the word forms a visitor uses for one thing
// share a stem, with and without diacritics, and that different things keep
// different stems.
func TestStemFamilies(t *testing.T) {
	tests := []struct {
		lang  string
		words []string
	}{
		{"en", []string{"shipping", "shipped", "ships", "ship"}},
		{"en", []string{"returns", "returned", "returning", "return"}},
		{"en", []string{"invoice", "invoices", "invoicing"}},
		{"ro", []string{"livrarea", "livrare", "livrării", "livrarii", "livrări", "livrările", "livrează", "livreaza", "livrat"}},
		{"ro", []string{"returnare", "returnarea", "returnări", "returnez", "returnează", "returnat"}},
		{"ro", []string{"plată", "plata", "plăți", "plati", "plătesc", "plătește", "platit"}},
		{"ro", []string{"cont", "contul", "conturi", "contului"}},
		{"ro", []string{"parolă", "parola", "parolei", "parolele"}},
		{"ro", []string{"factură", "factura", "facturii", "facturi", "facturile"}},
		{"ro", []string{"ștergere", "stergerea", "ștergerii", "șterge", "ștergeți"}},
		{"ro", []string{"cadou", "cadouri", "cadoul"}},
		{"ro", []string{"comandă", "comanda", "comenzi", "comenzile", "comenzii"}}, // irregular plural
		{"ro", []string{"zi", "zile", "zilele"}},
		{"en", []string{"buy", "bought"}},
		{"en", []string{"forget", "forgot", "forgotten"}},
		{"ru", []string{"день", "дня", "дней"}},
		{"ru", []string{"стоимость", "стоит", "стоят"}},
		{"ru", []string{"доставка", "доставки", "доставку", "доставкой"}},
		{"ru", []string{"пароль", "пароля", "паролем"}},
		{"ru", []string{"ещё", "еще"}},
	}
	for _, tt := range tests {
		want := Analyze(tt.words[0], tt.lang)
		for _, w := range tt.words[1:] {
			if got := Analyze(w, tt.lang); !slices.Equal(got, want) {
				t.Errorf("%s: %q → %q, but %q → %q", tt.lang, w, got, tt.words[0], want)
			}
		}
	}
	distinct := []struct{ lang, a, b string }{
		{"ro", "colet", "cont"},
		{"ro", "reset", "returnare"},
		{"ro", "card", "cadou"},
		{"en", "card", "cart"},
		{"ru", "заказ", "отказ"},
	}
	for _, tt := range distinct {
		if a, b := Analyze(tt.a, tt.lang), Analyze(tt.b, tt.lang); slices.Equal(a, b) {
			t.Errorf("%s: %q and %q share the stem %q", tt.lang, tt.a, tt.b, a)
		}
	}
}
