package manageapi

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// routesFile is the server's route table. It is read as text because
// package server imports this package, so importing it back would make a
// cycle.
const routesFile = "../server/routes.go"

// documented says which registered routes the OpenAPI document must
// describe: the APIs (everything under /api/), the embed script and the
// health check. The
// dashboard's pages, scripts and metrics are not part of any API.
func documented(path string) bool {
	return strings.HasPrefix(path, "/api/") || path == "/healthz" || path == "/widget.js"
}

// routePattern matches mux.HandleFunc("METHOD /path" and
// mux.Handle("METHOD /path".
var routePattern = regexp.MustCompile(`mux\.Handle(?:Func)?\(\s*"([A-Z]+) (/[^"]*)"`)

type route struct{ method, path string }

func (r route) String() string { return r.method + " " + r.path }

// registeredRoutes lists every route in routes.go with its Go pattern
// turned into an OpenAPI path: "{$}" is dropped and "{name...}" becomes
// "{name}".
func registeredRoutes(t *testing.T) []route {
	t.Helper()
	src, err := os.ReadFile(routesFile)
	if err != nil {
		t.Fatalf("reading the route table: %v", err)
	}
	var out []route
	for _, m := range routePattern.FindAllStringSubmatch(string(src), -1) {
		if documented(m[2]) {
			out = append(out, route{method: m[1], path: m[2]})
		}
	}
	// Guards against the pattern silently matching nothing after a change
	// of style in routes.go, which would make every check below pass.
	if len(out) < 20 {
		t.Fatalf("found only %d routes in %s; has the way routes are registered changed? Update routePattern.", len(out), routesFile)
	}
	return out
}

var wildcard = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)(?:\.\.\.)?\}`)

func openAPIPath(goPath string) string {
	if goPath != "/{$}" {
		goPath = strings.TrimSuffix(goPath, "{$}")
	}
	return wildcard.ReplaceAllString(goPath, "{$1}")
}

type document struct {
	OpenAPI    string                                `json:"openapi"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Parameters map[string]parameter `json:"parameters"`
	} `json:"components"`
}

type parameter struct {
	Ref      string `json:"$ref"`
	Name     string `json:"name"`
	In       string `json:"in"`
	Required bool   `json:"required"`
}

type operation struct {
	OperationID string                     `json:"operationId"`
	Parameters  []parameter                `json:"parameters"`
	Responses   map[string]json.RawMessage `json:"responses"`
	Security    *[]map[string][]string     `json:"security"`
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func loadDocument(t *testing.T) document {
	t.Helper()
	if !json.Valid(OpenAPI) {
		t.Fatal("openapi.json is not valid JSON")
	}
	var doc document
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf(`openapi = %q, want "3.1.0"`, doc.OpenAPI)
	}
	return doc
}

func TestOpenAPIIsValidJSON(t *testing.T) {
	loadDocument(t)
}

// TestOpenAPIFormatting keeps the file in the 2-space indented form.
func TestOpenAPIFormatting(t *testing.T) {
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, OpenAPI); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	if !bytes.Equal(indented.Bytes(), OpenAPI) {
		t.Error("openapi.json is not indented with 2 spaces (one JSON value, 2-space indent, final newline)")
	}
}

// TestOpenAPICoversRoutes fails when a route is added to the server without
// being documented, or a documented operation has no route.
func TestOpenAPICoversRoutes(t *testing.T) {
	doc := loadDocument(t)
	routes := registeredRoutes(t)

	registered := map[route]bool{}
	for _, r := range routes {
		p := openAPIPath(r.path)
		registered[route{strings.ToLower(r.method), p}] = true
		ops, ok := doc.Paths[p]
		if !ok {
			t.Errorf("route %s is not documented: add paths[%q] to openapi.json", r, p)
			continue
		}
		if _, ok := ops[strings.ToLower(r.method)]; !ok {
			t.Errorf("route %s is not documented: add paths[%q].%s to openapi.json", r, p, strings.ToLower(r.method))
		}
	}

	for p, item := range doc.Paths {
		for m := range item {
			if !slices.Contains(httpMethods, m) {
				continue
			}
			if !registered[route{m, p}] {
				t.Errorf("openapi.json documents %s %s, which the server does not register", strings.ToUpper(m), p)
			}
		}
	}
}

// TestOpenAPIOperations checks every operation: path parameters declared,
// responses present, unique operation ids, and the right security.
func TestOpenAPIOperations(t *testing.T) {
	doc := loadDocument(t)
	resolve := func(p parameter) parameter {
		if p.Ref == "" {
			return p
		}
		name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/")
		q, found := doc.Components.Parameters[name]
		if !ok || !found {
			t.Errorf("parameter $ref %q does not resolve", p.Ref)
		}
		return q
	}

	ids := map[string]string{}
	for p, item := range doc.Paths {
		var shared []parameter
		if raw, ok := item["parameters"]; ok {
			if err := json.Unmarshal(raw, &shared); err != nil {
				t.Fatalf("%s parameters: %v", p, err)
			}
		}
		for m, raw := range item {
			if !slices.Contains(httpMethods, m) {
				continue
			}
			where := strings.ToUpper(m) + " " + p
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s: %v", where, err)
			}

			declared := map[string]bool{}
			for _, prm := range append(slices.Clone(shared), op.Parameters...) {
				prm = resolve(prm)
				if prm.In == "path" {
					if !prm.Required {
						t.Errorf("%s: path parameter %q must be required", where, prm.Name)
					}
					declared[prm.Name] = true
				}
			}
			inPath := map[string]bool{}
			for _, w := range wildcard.FindAllStringSubmatch(p, -1) {
				inPath[w[1]] = true
				if !declared[w[1]] {
					t.Errorf("%s: path parameter {%s} is not declared", where, w[1])
				}
			}
			for name := range declared {
				if !inPath[name] {
					t.Errorf("%s: declares path parameter %q that is not in the path", where, name)
				}
			}

			if op.OperationID == "" {
				t.Errorf("%s has no operationId", where)
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("%s and %s share operationId %q", where, other, op.OperationID)
			}
			ids[op.OperationID] = where
			if len(op.Responses) == 0 {
				t.Errorf("%s lists no responses", where)
			}

			switch {
			case strings.HasPrefix(p, "/api/v1/"):
				if op.Security == nil || len(*op.Security) != 1 || (*op.Security)[0]["bearerAuth"] == nil {
					t.Errorf("%s: management operations need security [{bearerAuth: []}]", where)
				}
				if _, ok := op.Responses["401"]; !ok {
					t.Errorf("%s: management operations answer 401", where)
				}
			case strings.HasPrefix(p, "/api/widget/"):
				if op.Security == nil || len(*op.Security) != 0 {
					t.Errorf("%s: widget operations need security []", where)
				}
				for _, code := range []string{"400", "403", "429"} {
					if _, ok := op.Responses[code]; !ok {
						t.Errorf("%s: widget operations answer %s", where, code)
					}
				}
			}
		}
	}
}

// TestOpenAPIRefsResolve checks that every $ref points at something in the
// document.
func TestOpenAPIRefsResolve(t *testing.T) {
	var root any
	if err := json.Unmarshal(OpenAPI, &root); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if !pointerResolves(root, ref) {
					t.Errorf("$ref %q does not resolve", ref)
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(root)
}

// pointerResolves follows a local JSON pointer ("#/a/b").
func pointerResolves(root any, ref string) bool {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	cur := root
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[tok]; !ok {
			return false
		}
	}
	return true
}

func TestOpenAPIPathConversion(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/agents/{id}": "/api/v1/agents/{id}",
		"/api/v1/keys/{key}":  "/api/v1/keys/{key}",
		"/files/{path...}":    "/files/{path}",
		"/api/v1/agents/{$}":  "/api/v1/agents/",
		"/{$}":                "/{$}",
		"/api/widget/init":    "/api/widget/init",
		"/a/{x}/b/{y}/c":      "/a/{x}/b/{y}/c",
	} {
		if got := openAPIPath(in); got != want {
			t.Errorf("openAPIPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpenAPIDocumentsTranscriptPages: the conversation's transcript is
// documented as it is served: limit and before with the store's page
// sizes, next_before, the 400; and the chat's 403 for a full conversation
// with its exact text.
func TestOpenAPIDocumentsTranscriptPages(t *testing.T) {
	type op struct {
		Parameters []struct {
			Name   string
			In     string
			Schema struct{ Minimum, Maximum, Default int }
		}
		Responses map[string]struct {
			Ref string `json:"$ref"`
		}
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Schemas   map[string]json.RawMessage
			Responses map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	operation := func(path, method string) op {
		var o op
		if err := json.Unmarshal(doc.Paths[path][method], &o); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return o
	}
	get := operation("/api/v1/conversations/{id}", "get")
	params := map[string]bool{}
	for _, p := range get.Parameters {
		params[p.Name] = p.In == "query"
		if p.Name == "limit" && (p.Schema.Minimum != 1 || p.Schema.Maximum != store.MaxMessagePage || p.Schema.Default != store.DefaultMessagePage) {
			t.Errorf("limit is documented as %+v; the API takes 1 to %d, default %d", p.Schema, store.MaxMessagePage, store.DefaultMessagePage)
		}
	}
	if !params["limit"] || !params["before"] {
		t.Errorf("GET /api/v1/conversations/{id} documents the query parameters %v; want limit and before", params)
	}
	if _, ok := get.Responses["400"]; !ok {
		t.Error("GET /api/v1/conversations/{id} does not document its 400")
	}
	if !bytes.Contains(doc.Components.Schemas["ConversationDetail"], []byte(`"next_before"`)) {
		t.Error("ConversationDetail has no next_before")
	}
	full, _ := json.Marshal(domain.ErrConversationFull.Error())
	for _, where := range []struct{ path, method string }{{"/api/widget/chat", "post"}, {"/api/v1/conversations/{id}/messages", "post"}} {
		ref := operation(where.path, where.method).Responses["403"].Ref
		name, _ := strings.CutPrefix(ref, "#/components/responses/")
		if !bytes.Contains(doc.Components.Responses[name], full) {
			t.Errorf("%s %s: its 403 (%q) does not show %s", where.method, where.path, ref, full)
		}
	}
}
