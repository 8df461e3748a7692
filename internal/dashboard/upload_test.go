package dashboard

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// The knowledge editor's upload button takes PDF, DOCX and HTML files,
// made by a browser and an office suite (../extract/testdata), told apart
// by content; a scanned PDF is refused with a message that says why.
func TestUploadFileKinds(t *testing.T) {
	t.Parallel()
	e := newAgEnv(t)
	a, _ := e.newAgent(e.owner.AccountID, "Helper")
	base := "/agents/" + a.ID + "/knowledge"
	read := func(name string) []byte {
		data, err := os.ReadFile("../extract/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, c := range []struct{ file, title, has string }{
		{"office-ro.pdf", "Ghidul brutăriei", "Livrăm pâine proaspătă în oraș pentru o taxă fixă de cinci lei, iar țiglele de ciocolată sunt învelite în hârtie."},
		{"browser-ru.pdf", "Справочник пекарни", "Мы доставляем свежий хлеб по городу за фиксированную плату в пятьсот рублей."},
		{"doc-ru.docx", "Справочник пекарни", "## Цены\n\nТовар | Цена\nХлеб на закваске | 300 рублей"},
		{"page-en.html", "Shipping and returns", "## Delivery times"},
	} {
		p := e.upload(base, map[string]string{"kind": "document"}, "file.txt", read(c.file))
		if p.status != http.StatusSeeOther {
			t.Fatalf("%s: %d %s", c.file, p.status, p.body)
		}
		kb := e.knowledge(a)
		doc := kb[len(kb)-1]
		if doc.Title != c.title || !strings.Contains(doc.Text, c.has) {
			t.Errorf("%s: title %q, text:\n%s", c.file, doc.Title, doc.Text)
		}
	}
	p := e.upload(base, map[string]string{"kind": "document", "title": "Scan"}, "scan.pdf", read("scanned.pdf"))
	if p.status != http.StatusBadRequest {
		t.Errorf("scanned PDF: %d", p.status)
	}
	agMustContain(t, "scanned PDF", p.body, "This PDF has no text layer (a scanned document?)", `value="Scan"`)
	if kb := e.knowledge(a); len(kb) != 4 {
		t.Errorf("after the refused scan: %d items", len(kb))
	}
	page := e.get("/agents/" + a.ID)
	agMustContain(t, "upload button", page.body, `accept=".txt,.md,.markdown,.pdf,.docx,.html`, "PDF, Word (.docx) or a web page (.html), at most 10 MiB")
}
