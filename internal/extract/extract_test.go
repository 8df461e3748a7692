package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"parley/internal/retrieval"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDetect(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	var otherZip bytes.Buffer
	zw := zip.NewWriter(&otherZip)
	f, _ := zw.Create("xl/workbook.xml")
	f.Write([]byte("<workbook/>"))
	zw.Close()
	for _, c := range []struct {
		name string
		data []byte
		want Format
	}{
		{"browser pdf", fixture(t, "browser-en.pdf"), FormatPDF},
		{"office pdf", fixture(t, "office-ro.pdf"), FormatPDF},
		{"docx", fixture(t, "doc-ru.docx"), FormatDOCX},
		{"html", fixture(t, "page-ro.html"), FormatHTML},
		{"html fragment", []byte("\uFEFF<p>Salut</p>"), FormatHTML},
		{"xhtml", []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Salut</p></body></html>`), FormatHTML},
		{"a text about PDFs", []byte("Every PDF starts with %PDF-1.7 and ends with %%EOF."), FormatText},
		{"junk before a PDF", append([]byte("\x00\x01junk\n"), fixture(t, "browser-en.pdf")...), FormatPDF},
		{"other xml", []byte(`<?xml version="1.0"?><feed><title>Salut</title></feed>`), FormatText},
		{"markdown", []byte("# Livrare\n\nLivrăm în toată țara.\n"), FormatText},
		{"russian text", []byte("Доставка по городу"), FormatText},
		{"png", png, FormatUnknown},
		{"xlsx-like zip", otherZip.Bytes(), FormatUnknown},
		{"nul bytes", []byte("text\x00with nul"), FormatUnknown},
		{"latin-1", []byte("caf\xe9"), FormatUnknown},
	} {
		if got := Detect(c.data); got != c.want {
			t.Errorf("%s: Detect = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestExtractRefuses(t *testing.T) {
	t.Parallel()
	if _, err := Extract([]byte("\x89PNG\r\n\x1a\n\x00\x00"), ""); !errors.Is(err, ErrUnsupported) {
		t.Errorf("png: %v, want ErrUnsupported", err)
	}
	if _, err := Extract(make([]byte, MaxBytes+1), ""); !errors.Is(err, ErrTooLarge) {
		t.Errorf("11 MiB: %v, want ErrTooLarge", err)
	}
	if _, err := Extract(fixture(t, "scanned.pdf"), ""); !errors.Is(err, ErrNoText) {
		t.Errorf("scanned PDF: %v, want ErrNoText", err)
	}
	if _, err := Extract(fixture(t, "page-nav.html"), "https://bakery.example/sitemap"); !errors.Is(err, ErrNoContent) {
		t.Errorf("a page of links: %v, want ErrNoContent", err)
	}
	if _, err := Extract([]byte("%PDF-1.7\ngarbage that is no PDF"), ""); !errors.Is(err, ErrDamaged) {
		t.Errorf("damaged PDF: %v, want ErrDamaged", err)
	}
	truncated := fixture(t, "doc-en.docx")
	truncated = truncated[:len(truncated)/2]
	if _, err := Extract(truncated, ""); err == nil {
		t.Error("half a DOCX extracted without error")
	}
}

// The documents made from src/doc-*.html, one per language, in each form.
var documents = map[string]struct {
	title, body, heading, item, cell string
}{
	"en": {"Bakery handbook",
		"The bakery opens at seven in the morning and closes at six in the evening, every day except Sunday.",
		"Opening hours", "Orders placed before noon arrive the same day.", "Sourdough loaf"},
	"ro": {"Ghidul brutăriei",
		"Brutăria se deschide la ora șapte dimineața și se închide la ora șase seara, în fiecare zi în afară de duminică.",
		"Program de lucru", "Comenzile plasate înainte de prânz ajung în aceeași zi.", "Pâine cu maia"},
	"ru": {"Справочник пекарни",
		"Пекарня открывается в семь утра и закрывается в шесть вечера каждый день, кроме воскресенья.",
		"Часы работы", "Заказы, сделанные до полудня, приходят в тот же день.", "Хлеб на закваске"},
}

func TestExtractDocuments(t *testing.T) {
	t.Parallel()
	for _, form := range []string{"browser-%s.pdf", "office-%s.pdf", "doc-%s.docx"} {
		for lang, want := range documents {
			name := strings.Replace(form, "%s", lang, 1)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				doc, err := Extract(fixture(t, name), "")
				if err != nil {
					t.Fatal(err)
				}
				if doc.Title != want.title {
					t.Errorf("title %q, want %q", doc.Title, want.title)
				}
				for _, s := range []string{want.body, "## " + want.heading, want.item, want.cell} {
					if !strings.Contains(doc.Text, s) {
						t.Errorf("text lacks %q:\n%s", s, doc.Text)
					}
				}
				if !strings.HasPrefix(doc.Text, "# "+want.title+"\n") {
					t.Errorf("text does not start with the title as a heading:\n%s", doc.Text)
				}
				// The body sentence is its own passage, under its heading.
				found := false
				for _, p := range retrieval.SplitDocument(doc.Title, doc.Text) {
					if strings.Contains(p.Text, want.body) {
						found = true
						if !strings.Contains(p.Heading, want.heading) {
							t.Errorf("%q is under heading %q, want %q", want.body, p.Heading, want.heading)
						}
					}
				}
				if !found {
					t.Errorf("no passage has %q", want.body)
				}
			})
		}
	}
}

func TestExtractDOCXListsAndTables(t *testing.T) {
	t.Parallel()
	doc, err := Extract(fixture(t, "doc-ro.docx"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"- Comenzile plasate înainte de prânz ajung în aceeași zi.\n- Comenzile plasate după prânz ajung a doua zi dimineață.",
		"Produs | Preț\nPâine cu maia | 12 lei\nPâine de secară | 9 lei",
	} {
		if !strings.Contains(doc.Text, s) {
			t.Errorf("text lacks %q:\n%s", s, doc.Text)
		}
	}
}

// pages are the realistic pages in testdata: the article's sentences, and
// text of the parts around it that must not come out.
var pages = map[string]struct {
	title, intro, heading, section, item string
	chrome                               []string
}{
	"page-en.html": {"Shipping and returns",
		"We bake every loaf on the morning it leaves the bakery.",
		"Delivery costs", "Delivery within the city costs a flat fee of five euros, and it is free for orders over thirty euros.",
		"- Regional delivery: nine euros.",
		[]string{"cookies", "Skip to content", "Free delivery on orders", "Search the shop", "Wholesale", "Popular posts",
			"Sourdough starter guide", "Newsletter", "Help centre", "All rights reserved", "dataLayer", "Home"}},
	"page-ro.html": {"Livrare și retur",
		"Coacem fiecare pâine în dimineața în care pleacă din brutărie.",
		"Costul livrării", "Livrarea în oraș costă o taxă fixă de cincisprezece lei și este gratuită pentru comenzile de peste o sută cincizeci de lei.",
		"- Livrare în județ: douăzeci și cinci de lei.",
		[]string{"cookie", "Livrare gratuită pentru comenzi", "Acasă", "Contul meu", "Articole populare", "Abonează-te",
			"Termeni și condiții", "Toate drepturile rezervate", "_paq"}},
	"page-ru.html": {"Доставка и возврат",
		"Мы выпекаем каждую буханку утром того дня, когда она покидает пекарню.",
		"Стоимость доставки", "Доставка по городу стоит фиксированные триста рублей и бесплатна для заказов дороже трёх тысяч рублей.",
		"- Доставка по области: пятьсот рублей.",
		[]string{"cookie", "звонок бесплатный", "Поиск по каталогу", "Главная", "Личный кабинет", "Категории", "Пироги",
			"Публичная оферта", "Все права защищены", "metrika"}},
}

func TestExtractHTML(t *testing.T) {
	t.Parallel()
	for name, want := range pages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc, err := Extract(fixture(t, name), "https://bakery.example/help/shipping")
			if err != nil {
				t.Fatal(err)
			}
			if lang := strings.TrimSuffix(strings.TrimPrefix(name, "page-"), ".html"); doc.Lang != lang {
				t.Errorf("lang %q, want %q", doc.Lang, lang)
			}
			if !strings.HasPrefix(doc.Title, want.title) {
				t.Errorf("title %q, want %q", doc.Title, want.title)
			}
			for _, s := range []string{want.intro, "## " + want.heading + "\n\n" + want.section, want.item} {
				if !strings.Contains(doc.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, doc.Text)
				}
			}
			for _, s := range want.chrome {
				if strings.Contains(doc.Text, s) {
					t.Errorf("text has %q from around the article:\n%s", s, doc.Text)
				}
			}
			passages := retrieval.SplitDocument(doc.Title, doc.Text)
			for _, p := range passages {
				if strings.Contains(p.Text, want.section) && !strings.Contains(p.Heading, want.heading) {
					t.Errorf("%q is under heading %q, want %q", want.section, p.Heading, want.heading)
				}
			}
		})
	}
}

func TestExtractHTMLTable(t *testing.T) {
	t.Parallel()
	doc, err := Extract(fixture(t, "page-en.html"), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Problem | What we do\nDamaged parcel | Full refund\nLate delivery | Delivery fee refunded"; !strings.Contains(doc.Text, want) {
		t.Errorf("text lacks the table rows %q:\n%s", want, doc.Text)
	}
}

// A short page with no <main> and too little text for readability still
// gives its text, and an <html lang> Parley does not speak gives no Lang.
func TestExtractHTMLShortPage(t *testing.T) {
	t.Parallel()
	page := `<html lang="de"><head><title>Kontakt</title></head><body>
<nav><a href="/">Start</a> <a href="/shop">Laden</a></nav>
<h1>Kontakt</h1><p>Rufen Sie uns an: 030 1234567.<br>Montag bis Freitag.</p>
<footer>© 2025 Bäckerei</footer></body></html>`
	doc, err := Extract([]byte(page), "")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Lang != "" || doc.Title != "Kontakt" {
		t.Errorf("lang %q title %q, want none and Kontakt", doc.Lang, doc.Title)
	}
	if !strings.Contains(doc.Text, "Rufen Sie uns an: 030 1234567.\nMontag bis Freitag.") || strings.Contains(doc.Text, "Laden") || strings.Contains(doc.Text, "2025") {
		t.Errorf("text:\n%s", doc.Text)
	}
}

func TestExtractText(t *testing.T) {
	t.Parallel()
	doc, err := Extract([]byte("\uFEFF# Livrare\r\n\r\nLivrăm în toată țara.\r\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "# Livrare\n\nLivrăm în toată țara." {
		t.Errorf("text %q", doc.Text)
	}
}

// A DOCX whose document.xml inflates past maxUnpacked is refused while
// reading, whatever its header claims.
func TestExtractDOCXBomb(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range maxUnpacked>>20 + 1 {
		w.Write(chunk)
	}
	w.Write([]byte(`</w:t></w:r></w:p></w:body></w:document>`))
	zw.Close()
	if buf.Len() > MaxBytes {
		t.Fatalf("the bomb is %d bytes, more than MaxBytes", buf.Len())
	}
	if _, err := Extract(buf.Bytes(), ""); !errors.Is(err, ErrUnpacksTooLarge) {
		t.Errorf("bomb: %v, want ErrUnpacksTooLarge", err)
	}
}

// Damaged files end in an error or some text, never a panic or a hang:
// every fixture cut short at many places, and with bytes overwritten.
func TestExtractDamagedFiles(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"browser-ru.pdf", "office-ro.pdf", "doc-ro.docx", "page-ru.html"} {
		data := fixture(t, name)
		for i := 1; i < 40; i++ {
			cut := data[:len(data)*i/40]
			Extract(cut, "")
			spoiled := bytes.Clone(data)
			for j := i; j < len(spoiled); j += 97 * i {
				spoiled[j] ^= 0x5a
			}
			Extract(spoiled, "")
		}
	}
}
