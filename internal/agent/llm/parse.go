package llm

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"parley/internal/agent"
)

const (
	maxQuickReplies  = 3
	maxQuickReplyLen = 80 // characters; a longer one is no quick reply
	codeFence        = "```"
)

// parseReply turns the model's content into a Reply. Content that is, or
// holds, a JSON object with a string "reply" gives that reply and its quick
// replies; anything else is the reply itself. Formatting never fails a
// chat: the worst case is that the visitor sees the model's raw text.
func parseReply(content string) agent.Reply {
	content = strings.TrimSpace(content)
	for _, candidate := range jsonCandidates(content) {
		if reply, ok := structured(candidate); ok {
			return reply
		}
	}
	return agent.Reply{Text: content}
}

// jsonCandidates are the places a model puts the JSON it was asked for:
// the whole content, a ``` fenced block, or after some leading prose.
func jsonCandidates(content string) []string {
	var out []string
	if strings.HasPrefix(content, "{") {
		out = append(out, content)
	}
	if _, rest, ok := strings.Cut(content, codeFence); ok {
		// Skip the fence's language tag ("json") up to the line end.
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		block, _, _ := strings.Cut(rest, codeFence)
		out = append(out, strings.TrimSpace(block))
	}
	if i := strings.IndexByte(content, '{'); i > 0 {
		out = append(out, content[i:])
	}
	return out
}

// structured decodes the first JSON value in s (text after it is ignored)
// and accepts it when it is an object with a string "reply".
func structured(s string) (agent.Reply, bool) {
	var v map[string]json.RawMessage
	if err := json.NewDecoder(strings.NewReader(s)).Decode(&v); err != nil {
		return agent.Reply{}, false
	}
	var text string
	if raw, ok := v["reply"]; !ok || json.Unmarshal(raw, &text) != nil {
		return agent.Reply{}, false
	}
	// quick_replies of the wrong shape are dropped, not fatal: the reply
	// itself is what the visitor needs.
	var items []any
	_ = json.Unmarshal(v["quick_replies"], &items)
	// "unanswered" lets the two-misses handoff rule work with an LLM too;
	// anything but a JSON true counts as answered.
	var unanswered bool
	_ = json.Unmarshal(v["unanswered"], &unanswered)
	return agent.Reply{Text: strings.TrimSpace(text), Options: quickReplies(items), Unanswered: unanswered}, true
}

// quickReplies keeps up to three distinct, non-empty string items of at
// most maxQuickReplyLen characters; nil when none qualify.
func quickReplies(items []any) []string {
	var out []string
	seen := make(map[string]bool)
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			continue
		}
		s = strings.TrimSpace(s)
		key := strings.ToLower(s)
		if s == "" || utf8.RuneCountInString(s) > maxQuickReplyLen || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, s)
		if len(out) == maxQuickReplies {
			break
		}
	}
	return out
}
