package manageapi

import (
	"encoding/json"
	"slices"
	"testing"

	"parley/web/i18n"
)

// Every list of languages in the OpenAPI file is Parley's one list (with
// "" where a field may name no language), so a language added to
// i18n.Languages is not left out of the published contract.
func TestOpenAPILanguagesAreTheList(t *testing.T) {
	t.Parallel()
	var doc any
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	found := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if enum, ok := v["enum"].([]any); ok && slices.Contains(enum, any("en")) {
				found++
				var got []string
				for _, e := range enum {
					if s, ok := e.(string); ok && s != "" {
						got = append(got, s)
					}
				}
				if !slices.Equal(got, i18n.Languages) {
					t.Errorf("an enum lists the languages %v, want %v", got, i18n.Languages)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if found == 0 {
		t.Error("no language enum found in openapi.json")
	}
}
