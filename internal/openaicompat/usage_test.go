package openaicompat

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// The backend's token counts come back with the reply, whole or streamed;
// a stream is asked for them (stream_options.include_usage), a whole
// answer is not (it always may carry them), and counts that make no sense
// are dropped.
func TestChatUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		stream bool
		body   string
		want   ChatReply
	}{
		{"whole", false, `{"choices":[{"message":{"content":"Hi"}}],"usage":{"prompt_tokens":120,"completion_tokens":7,"total_tokens":127}}`,
			ChatReply{Content: "Hi", Usage: Usage{PromptTokens: 120, CompletionTokens: 7}}},
		{"whole without usage", false, `{"choices":[{"message":{"content":"Hi"}}]}`, ChatReply{Content: "Hi"}},
		{"whole with negative counts", false, `{"choices":[{"message":{"content":"Hi"}}],"usage":{"prompt_tokens":-1,"completion_tokens":3}}`,
			ChatReply{Content: "Hi"}},
		{"streamed, usage in the last chunk", true, "data: {\"choices\":[{\"delta\":{\"content\":\"H\"}}],\"usage\":null}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"i\"}}],\"usage\":null}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n",
			ChatReply{Content: "Hi", Usage: Usage{PromptTokens: 50, CompletionTokens: 2}}},
		{"streamed without usage", true, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n", ChatReply{Content: "Hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				var body struct {
					StreamOptions *struct {
						IncludeUsage bool `json:"include_usage"`
					} `json:"stream_options"`
				}
				if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
					t.Error(err)
				}
				if asked := body.StreamOptions != nil && body.StreamOptions.IncludeUsage; asked != tt.stream {
					t.Errorf("stream_options.include_usage = %v, want %v", asked, tt.stream)
				}
				if !tt.stream && body.StreamOptions != nil {
					t.Error("stream_options sent without stream")
				}
				io.WriteString(w, tt.body)
			})
			got, err := c.Chat(t.Context(), chatReq(tt.stream), Retry{})
			if err != nil || got != tt.want {
				t.Fatalf("Chat = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
