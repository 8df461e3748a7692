// Package openaicompat speaks the HTTP API that OpenAI defined and that
// Azure OpenAI (its v1 endpoint), Ollama, vLLM, llama.cpp's server,
// OpenRouter and many others implement: Chat Completions, answered whole or
// streamed as server-sent events, with the retries the official SDKs make.
//
// It replaces the official openai-go SDK, whose one package holds the whole
// OpenAI API and took over 40% of a cold build's CPU (docs/benchmarks.md,
// "Cold build") for the one call Parley makes.
package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client calls one backend. The zero value is not usable: BaseURL and HTTP
// are required.
type Client struct {
	// BaseURL is the API root that "chat/completions" is appended to, e.g.
	// "https://api.openai.com/v1" or "http://localhost:11434/v1".
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>"; "" sends none.
	APIKey string
	// HTTP sends the requests; its transport decides where they may go
	// (package outbound guards tenants' URLs).
	HTTP *http.Client
}

// Message is one turn of the conversation sent to the model.
type Message struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// ChatRequest is a Chat Completions call.
type ChatRequest struct {
	Model    string
	Messages []Message
	// Stream asks for the answer as server-sent events, assembled here.
	Stream bool
	// OnDelta, with Stream, is handed each piece of the first choice's
	// content as it arrives, in order, on the calling goroutine. Pieces
	// come only from the answer that is returned: a retried attempt
	// failed on its status, before any piece was read.
	OnDelta func(content string)
}

// ChatReply is the first choice of the model's answer.
type ChatReply struct {
	Content string
	// Refusal is set by models that decline to answer (OpenAI's safety
	// refusals) instead of Content.
	Refusal string
	// Usage is what the call cost as the backend counted it; zero when it
	// did not say (some servers omit "usage", most streams without
	// stream_options.include_usage).
	Usage Usage
}

// Usage is the tokens a completion took: its prompt and its answer.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// maxBody bounds what is read of an answer, whole or streamed: far more
// than any chat reply, little enough that a backend sending without end
// cannot fill the memory.
const maxBody = 4 << 20

// Chat asks the model and returns its reply. It retries as Retry says, all
// within ctx. A failure is an *Error (an HTTP error status), wraps
// ErrInvalidResponse (an answer that is not a completion), is ctx's error,
// or is the transport's error; none of them quotes the answer's body.
func (c *Client) Chat(ctx context.Context, req ChatRequest, retry Retry) (ChatReply, error) {
	body, err := json.Marshal(newChatBody(req))
	if err != nil {
		return ChatReply{}, err
	}
	url := strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
	for attempt := 0; ; attempt++ {
		res, err := c.post(ctx, url, body, req.Stream)
		if ctx.Err() != nil {
			return ChatReply{}, ctx.Err()
		}
		wait, again := retry.next(attempt, res, err)
		if !again {
			if err != nil {
				return ChatReply{}, err
			}
			return read(res, req)
		}
		if res != nil {
			drain(res)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ChatReply{}, ctx.Err()
		}
	}
}

// chatBody is the request's JSON.
type chatBody struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Stream   bool      `json:"stream,omitempty"`
	// StreamOptions asks a stream for a last chunk holding the usage, which
	// a streamed answer otherwise lacks. OpenAI, Azure, vLLM, Ollama and
	// llama.cpp's server all accept it.
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

func newChatBody(req ChatRequest) chatBody {
	b := chatBody{Model: req.Model, Messages: req.Messages, Stream: req.Stream}
	if req.Stream {
		b.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return b
}

func (c *Client) post(ctx context.Context, url string, body []byte, stream bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Parley")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	return c.HTTP.Do(req)
}

// read turns a final answer into a reply or an error.
func read(res *http.Response, req ChatRequest) (ChatReply, error) {
	defer drain(res)
	if res.StatusCode >= 400 {
		return ChatReply{}, statusError(res)
	}
	if req.Stream {
		return readStream(io.LimitReader(res.Body, maxBody), req.OnDelta)
	}
	var c completion
	if err := decodeJSON(res.Body, &c); err != nil {
		return ChatReply{}, err
	}
	if c.Error != nil {
		return ChatReply{}, c.Error.asError(res.StatusCode)
	}
	if len(c.Choices) == 0 {
		return ChatReply{Usage: c.usage()}, nil // the caller reports an empty reply
	}
	m := c.Choices[0].Message
	return ChatReply{Content: m.Content, Refusal: m.Refusal, Usage: c.usage()}, nil
}

// completion is the part of a Chat Completions answer Parley reads. Some
// servers answer an error with status 200 and an "error" object.
type completion struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage *Usage    `json:"usage"`
	Error *apiError `json:"error"`
}

// usage is the answer's usage, zero when it has none. Negative counts, which
// no real server sends, are taken as none rather than stored.
func (c completion) usage() Usage { return validUsage(c.Usage) }

func validUsage(u *Usage) Usage {
	if u == nil || u.PromptTokens < 0 || u.CompletionTokens < 0 {
		return Usage{}
	}
	return *u
}

// decodeJSON reads one JSON value of at most maxBody bytes into v.
func decodeJSON(r io.Reader, v any) error {
	raw, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return err
	}
	if len(raw) > maxBody {
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidResponse, maxBody)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		// json's errors quote at most a character of the input.
		return fmt.Errorf("%w: %v", ErrInvalidResponse, err)
	}
	return nil
}

// drain reads a little of what is left and closes the body, so the
// connection can be reused.
func drain(res *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
}

// ErrInvalidResponse: the backend answered, but not with a completion
// (HTML from a proxy, a broken JSON body or stream).
var ErrInvalidResponse = errors.New("openaicompat: invalid response")
