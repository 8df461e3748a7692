// Package widgetbuild turns the hand-written widget sources in web/widget
// into the two files the server sends: the loader (/widget.js) and the UI
// chunk (/widget-ui.<hash>.js). It minifies with esbuild's Go API, so the
// build needs no Node. It runs only at development time (go generate, and
// the test that checks the committed output is current); the server embeds
// the committed output and never links esbuild.
package widgetbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Bundle is the build's output.
type Bundle struct {
	Loader []byte // served as /widget.js
	UI     []byte // served as /widget-ui.<hash>.js, named by UIName
	UIName string // "widget-ui.<hash>.js"; the loader holds this name
}

// UIName names the UI chunk after its content, so the server can let
// browsers cache it for a year: a new version is a new URL.
func UIName(ui []byte) string {
	sum := sha256.Sum256(ui)
	// 48 bits tell versions apart; the name stays short in the loader.
	return "widget-ui." + hex.EncodeToString(sum[:6]) + ".js"
}

// Build reads loader.js, launcher.css, ui.js and ui.css from src and
// returns the minified bundle. The texts come from the message catalogues
// (see texts.go). The CSS becomes string constants inside the
// scripts (PARLEY_LAUNCHER_CSS, PARLEY_UI_CSS), since the widget installs
// it as constructed stylesheets; PARLEY_UI in the loader becomes the UI
// chunk's name.
func Build(src fs.FS) (Bundle, error) {
	read := func(name string) (string, error) {
		b, err := fs.ReadFile(src, name)
		return string(b), err
	}
	files := map[string]string{}
	var err error
	for _, name := range []string{"loader.js", "launcher.css", "ui.js", "ui.css"} {
		s, err := read(name)
		if err != nil {
			return Bundle{}, err
		}
		files[name] = s
	}
	if files["loader.js"], err = injectOpen(files["loader.js"]); err != nil {
		return Bundle{}, err
	}
	if files["ui.js"], err = injectTexts(files["ui.js"]); err != nil {
		return Bundle{}, err
	}
	launcherCSS, err := minify("launcher.css", files["launcher.css"], api.LoaderCSS, 0, nil)
	if err != nil {
		return Bundle{}, err
	}
	uiCSS, err := minify("ui.css", files["ui.css"], api.LoaderCSS, 0, nil)
	if err != nil {
		return Bundle{}, err
	}
	ui, err := minify("ui.js", files["ui.js"], api.LoaderJS, api.FormatESModule,
		map[string]string{"PARLEY_UI_CSS": jsString(uiCSS)})
	if err != nil {
		return Bundle{}, err
	}
	name := UIName(ui)
	loader, err := minify("loader.js", files["loader.js"], api.LoaderJS, api.FormatDefault,
		map[string]string{"PARLEY_UI": jsString([]byte(name)), "PARLEY_LAUNCHER_CSS": jsString(launcherCSS)})
	if err != nil {
		return Bundle{}, err
	}
	return Bundle{Loader: loader, UI: ui, UIName: name}, nil
}

// jsString quotes s as a JSON string, which esbuild's define accepts as a
// string literal.
func jsString(s []byte) string {
	b, _ := json.Marshal(strings.TrimSpace(string(s))) // a string always encodes
	return string(b)
}

func minify(name, code string, loader api.Loader, format api.Format, define map[string]string) ([]byte, error) {
	opts := api.TransformOptions{
		Sourcefile:        name,
		Loader:            loader,
		Format:            format,
		Define:            define,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		// Comments only explain the source; the license is the repository's.
		LegalComments: api.LegalCommentsNone,
		Charset:       api.CharsetUTF8,
	}
	if loader == api.LoaderJS {
		// Browsers from 2020 on: optional chaining, ??, dynamic import.
		opts.Target = api.ES2020
	}
	r := api.Transform(code, opts)
	if len(r.Errors) > 0 || len(r.Warnings) > 0 {
		msgs := append(r.Errors, r.Warnings...)
		var errs []error
		for _, m := range msgs {
			line := 0
			if m.Location != nil {
				line = m.Location.Line
			}
			errs = append(errs, fmt.Errorf("%s:%d: %s", name, line, m.Text))
		}
		return nil, errors.Join(errs...)
	}
	return r.Code, nil
}
