package server

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"os"
	"strings"
	"testing"

	"parley/internal/extract"
)

// upload posts a file (and form fields) to the agent's knowledge through
// the management API.
func (e *env) upload(name string, file []byte, fields map[string]string) response {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(file)
	mw.Close()
	return e.do("POST", "/api/v1/agents/"+e.agent.ID+"/knowledge", buf.Bytes(), map[string]string{
		"Authorization": "Bearer " + e.token, "Content-Type": mw.FormDataContentType()})
}

func extractFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../extract/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Files of every kind through POST /knowledge: told apart by content (the
// names here lie), their text readable in Romanian and Russian, and the
// files with no usable text refused with words that say why.
func TestUploadFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, c := range []struct {
		file, name  string
		fields      map[string]string
		title, lang string
		has, hasNot string
	}{
		{"browser-ro.pdf", "upload.bin", nil, "Ghidul brutăriei", "",
			"Brutăria se deschide la ora șapte dimineața și se închide la ora șase seara", ""},
		{"office-ru.pdf", "scan.txt", map[string]string{"lang": "ru"}, "Справочник пекарни", "ru",
			"## Часы работы\n\nПекарня открывается в семь утра", ""},
		{"doc-en.docx", "handbook.docx", map[string]string{"title": "Our handbook"}, "Our handbook", "",
			"Sourdough loaf | 4 euros", ""},
		{"page-ro.html", "livrare.html", nil, "Livrare și retur", "ro",
			"## Costul livrării", "cookie"},
	} {
		r := e.upload(c.name, extractFixture(t, c.file), c.fields)
		if r.status != 201 {
			t.Fatalf("%s: %d %s", c.file, r.status, r.raw)
		}
		if r.str("kind") != "document" || r.str("title") != c.title || r.str("lang") != c.lang ||
			!strings.Contains(r.str("text"), c.has) || c.hasNot != "" && strings.Contains(r.str("text"), c.hasNot) {
			t.Errorf("%s: %s", c.file, r.raw)
		}
	}

	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	tooLong := strings.Repeat("Pâine. ", 200000/7+1) // 200,004 characters
	for _, c := range []struct {
		what   string
		name   string
		file   []byte
		status int
		msg    string
	}{
		{"a scanned PDF", "scan.pdf", extractFixture(t, "scanned.pdf"), 400, extract.ErrNoText.Error()},
		{"a picture", "photo.pdf", png, 400, extract.ErrUnsupported.Error()},
		{"a page of links", "map.html", extractFixture(t, "page-nav.html"), 400, extract.ErrNoContent.Error()},
		{"10 MiB and a byte", "big.txt", bytes.Repeat([]byte("a"), extract.MaxBytes+1), 413, extract.ErrTooLarge.Error()},
		{"a text longer than a document", "long.txt", []byte(tooLong), 413,
			fmt.Sprintf("the file's text is %d characters and a document holds at most 200000: split the file and upload the parts", len([]rune(strings.TrimSpace(tooLong))))},
	} {
		r := e.upload(c.name, c.file, nil)
		if r.status != c.status || r.str("error") != c.msg {
			t.Errorf("%s: %d %s, want %d %q", c.what, r.status, r.raw, c.status, c.msg)
		}
	}
	if kb := e.api("GET", "/api/v1/agents/"+e.agent.ID+"/knowledge", nil); len(kb.body["knowledge"].([]any)) != len(testKnowledge)+4 {
		t.Errorf("refused files changed the knowledge: %s", kb.raw)
	}
}
