package agent

import "parley/internal/retrieval"

// clarify asks "did you mean…?" instead of answering when the best match
// is not clearly the one the visitor means (see the rules below).
func clarify(hits []retrieval.Hit, lang string) (Reply, bool) {
	return Reply{}, false
}
