package web

import (
	"bytes"
	"compress/gzip"
	"os"
	"testing"

	"parley/web/internal/widgetbuild"
)

// The committed dist/ must be what the sources (widget/ and the widget.*
// texts of i18n/) build to; otherwise a change to them would silently not
// ship.
func TestDistIsCurrent(t *testing.T) {
	b, err := widgetbuild.Build(os.DirFS("widget"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Loader, WidgetJS) || !bytes.Equal(b.UI, WidgetUI) || b.UIName != WidgetUIName {
		t.Fatal("web/dist is not the build of web/widget and the catalogues web/i18n: run `go generate ./web` and commit web/dist")
	}
}

// The loader names the chunk it imports; the server serves it by this name.
func TestLoaderNamesTheUIChunk(t *testing.T) {
	if !bytes.Contains(WidgetJS, []byte(`"`+WidgetUIName+`"`)) {
		t.Fatalf("dist/widget.js does not import %s", WidgetUIName)
	}
	if WidgetUIName != widgetbuild.UIName(WidgetUI) {
		t.Fatalf("%s is not named after its content", WidgetUIName)
	}
}

// Budgets from issue 4, in gzipped bytes as the server sends them (gzip's
// best compression, internal/assets). Bytes are deterministic, so this is
// exact; the browser test (internal/e2e) checks what is actually fetched.
const (
	budgetBeforeClick = 6000  // the loader: all a page view loads before the chat is opened
	budgetWhole       = 20000 // everything the widget ever loads
)

func TestWidgetBudgets(t *testing.T) {
	loader, ui := gzipSize(t, WidgetJS), gzipSize(t, WidgetUI)
	t.Logf("loader %d bytes (gzip %d), UI chunk %d bytes (gzip %d), whole widget gzip %d",
		len(WidgetJS), loader, len(WidgetUI), ui, loader+ui)
	if loader > budgetBeforeClick {
		t.Errorf("the loader is %d bytes gzipped; the budget is %d", loader, budgetBeforeClick)
	}
	if loader+ui > budgetWhole {
		t.Errorf("the whole widget is %d bytes gzipped; the budget is %d", loader+ui, budgetWhole)
	}
}

func gzipSize(t *testing.T, b []byte) int {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}
