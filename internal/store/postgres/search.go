package postgres

import "parley/internal/store"

// The inbox search (see store.Fold): PostgreSQL's lower() and ILIKE fold by
// the database's locale (nothing but ASCII under C, a common choice), so,
// like the SQLite store, this store keeps messages.text_folded =
// fold(text), written by AddMessage, and matches the folded query against
// it with a plain LIKE. Both stores share the folding, so they find the
// same conversations.

// fold and containsPattern are the shared search folding (store.Fold).
func fold(s string) string            { return store.Fold(s) }
func containsPattern(q string) string { return store.ContainsPattern(q) }
