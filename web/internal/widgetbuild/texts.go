package widgetbuild

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"parley/web/i18n"
)

// The widget's texts come from the message catalogues (package i18n, keys
// widget.*), so a new language needs no edit of the widget's sources. The
// sources hold placeholders that the build replaces with JavaScript object
// literals, language → text, before minifying:
//
//	loader.js: PARLEY_OPEN                  → {"en":"Open chat",…}   (widget.open)
//	ui.js:     PARLEY_TEXTS('close|send|…') → {"en":"Close chat|Send|…",…}
//
// The UI's texts are joined with '|' in the order the call names them, and
// ui.js splits them back; one string per language keeps the chunk small.
// The loader's table is only the launcher's name, since every page view
// loads it. esbuild's define is not used for these: it hoists an object
// value into a top-level variable, which the loader (a classic script)
// would leak into the page's global scope.
var (
	openPlaceholder  = regexp.MustCompile(`\bPARLEY_OPEN\b`)
	textsPlaceholder = regexp.MustCompile(`\bPARLEY_TEXTS\('([a-z|]*)'\)`)
)

// openKey is the launcher's name; every other widget.* key is the UI's.
const openKey = "widget.open"

// injectOpen fills loader.js's table of launcher names.
func injectOpen(code string) (string, error) {
	byLang := map[string]string{}
	for _, l := range i18n.Languages {
		byLang[l] = i18n.Text(l, openKey)
	}
	return replaceOnce("loader.js", code, openPlaceholder, jsObject(byLang))
}

// injectTexts fills ui.js's table of texts, checking that ui.js names
// every widget.* key of the catalogues but the launcher's, and only those.
func injectTexts(code string) (string, error) {
	m := textsPlaceholder.FindAllStringSubmatch(code, -1)
	if len(m) != 1 {
		return "", fmt.Errorf("ui.js: want one PARLEY_TEXTS('name|…') call, found %d", len(m))
	}
	names := strings.Split(m[0][1], "|")
	en, err := i18n.Catalogue("en")
	if err != nil {
		return "", err
	}
	var missing, unused []string
	for _, n := range names {
		if _, ok := en["widget."+n]; !ok || "widget."+n == openKey {
			missing = append(missing, "widget."+n)
		}
	}
	for k := range en {
		if strings.HasPrefix(k, "widget.") && k != openKey && !slices.Contains(names, strings.TrimPrefix(k, "widget.")) {
			unused = append(unused, k)
		}
	}
	if len(missing) > 0 || len(unused) > 0 {
		slices.Sort(unused)
		return "", fmt.Errorf("ui.js: PARLEY_TEXTS names %v, which are not UI texts of the catalogues, and leaves out %v", missing, unused)
	}
	byLang := map[string]string{}
	for _, l := range i18n.Languages {
		texts := make([]string, len(names))
		for i, n := range names {
			texts[i] = i18n.Text(l, "widget."+n)
			if strings.Contains(texts[i], "|") {
				return "", fmt.Errorf("%s.json: widget.%s holds '|', which separates the widget's texts", l, n)
			}
		}
		byLang[l] = strings.Join(texts, "|")
	}
	return replaceOnce("ui.js", code, textsPlaceholder, jsObject(byLang))
}

// replaceOnce puts value where the one match of placeholder is in code.
func replaceOnce(name, code string, placeholder *regexp.Regexp, value string) (string, error) {
	loc := placeholder.FindAllStringIndex(code, -1)
	if len(loc) != 1 {
		return "", fmt.Errorf("%s: want one %s, found %d", name, placeholder, len(loc))
	}
	return code[:loc[0][0]] + value + code[loc[0][1]:], nil
}

// jsObject writes m as a JSON object, which is also a JavaScript object
// literal (ES2019 and later accept every JSON string).
func jsObject(m map[string]string) string {
	b, _ := json.Marshal(m) // a map of strings always encodes
	return string(b)
}
