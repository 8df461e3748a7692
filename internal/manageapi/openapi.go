package manageapi

import _ "embed"

// OpenAPI is the OpenAPI 3.1 description of the widget and management APIs,
// served at /api/openapi.json. docs/api.md is its prose companion.
//
//go:embed openapi.json
var OpenAPI []byte
