package llm

import (
	"slices"
	"strings"
	"testing"

	"parley/internal/agent"
)

func TestParseReply(t *testing.T) {
	long := strings.Repeat("ä", 81)
	tests := []struct {
		name    string
		content string
		want    agent.Reply
	}{
		{"plain", "Hello there.", agent.Reply{Text: "Hello there."}},
		{"plain trimmed", "\n  Hello.  \n", agent.Reply{Text: "Hello."}},
		{"empty", "", agent.Reply{}},
		{"json", `{"reply": " Hi ", "quick_replies": ["A", "B"]}`, agent.Reply{Text: "Hi", Options: []string{"A", "B"}}},
		{"json with trailing text", `{"reply": "Hi"} hope this helps`, agent.Reply{Text: "Hi"}},
		{"fenced json", "```json\n{\"reply\": \"Hi\", \"quick_replies\": [\"A\"]}\n```", agent.Reply{Text: "Hi", Options: []string{"A"}}},
		{"fenced without language", "```\n{\"reply\": \"Hi\"}\n```", agent.Reply{Text: "Hi"}},
		{"prose then json", "Sure! {\"reply\": \"Hi\", \"quick_replies\": [\"A\"]}", agent.Reply{Text: "Hi", Options: []string{"A"}}},
		{"partial json", `{"reply": "Hi, we`, agent.Reply{Text: `{"reply": "Hi, we`}},
		{"unclosed fence", "```json\n{\"reply\": \"Hi\"", agent.Reply{Text: "```json\n{\"reply\": \"Hi\""}},
		{"reply not a string", `{"reply": 42}`, agent.Reply{Text: `{"reply": 42}`}},
		{"json array", `["Hi"]`, agent.Reply{Text: `["Hi"]`}},
		{"braces in prose", "Use {name} in templates.", agent.Reply{Text: "Use {name} in templates."}},
		{
			"quick replies filtered",
			`{"reply": "Hi", "quick_replies": [" A ", "", "a", 7, null, "` + long + `", "B", "C", "D"]}`,
			agent.Reply{Text: "Hi", Options: []string{"A", "B", "C"}},
		},
		{"quick replies of the wrong shape", `{"reply": "Hi", "quick_replies": "A, B"}`, agent.Reply{Text: "Hi"}},
		{"exactly 80 characters kept", `{"reply": "Hi", "quick_replies": ["` + strings.Repeat("я", 80) + `"]}`, agent.Reply{Text: "Hi", Options: []string{strings.Repeat("я", 80)}}},
		{"empty reply", `{"reply": "", "quick_replies": ["A"]}`, agent.Reply{Options: []string{"A"}}},
		{"unanswered", `{"reply": "I don't know.", "unanswered": true}`, agent.Reply{Text: "I don't know.", Unanswered: true}},
		{"unanswered false", `{"reply": "9 to 5.", "unanswered": false}`, agent.Reply{Text: "9 to 5."}},
		{"unanswered not a bool", `{"reply": "Hm.", "unanswered": "yes"}`, agent.Reply{Text: "Hm."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseReply(tt.content)
			if got.Text != tt.want.Text || !slices.Equal(got.Options, tt.want.Options) || got.Unanswered != tt.want.Unanswered {
				t.Errorf("parseReply(%q) = %+v, want %+v", tt.content, got, tt.want)
			}
			if len(tt.want.Options) == 0 && got.Options != nil {
				t.Errorf("Options = %#v, want nil", got.Options)
			}
		})
	}
}
