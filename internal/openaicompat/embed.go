package openaicompat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// DefaultEmbedBatch is how many texts one embeddings request carries when
// EmbedRequest.Batch is not set: OpenAI accepts up to 2,048 inputs, but
// local servers (Ollama, llama.cpp) embed a request's inputs one after
// another, and a smaller batch keeps each request well inside a timeout
// and makes a retry after a failure cheap.
const DefaultEmbedBatch = 64

// EmbedRequest is an Embeddings call for many texts.
type EmbedRequest struct {
	Model string
	Input []string
	// Batch is how many inputs go in one request; 0 means DefaultEmbedBatch.
	Batch int
}

// Embed returns one vector per input, in the inputs' order, sending them
// in batches, each retried as Retry says, all within ctx. A failure is
// reported as Chat reports it; a batch answered with the wrong number of
// vectors, or vectors of different lengths, wraps ErrInvalidResponse.
func (c *Client) Embed(ctx context.Context, req EmbedRequest, retry Retry) ([][]float32, error) {
	batch := req.Batch
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	out := make([][]float32, 0, len(req.Input))
	for start := 0; start < len(req.Input); start += batch {
		part := req.Input[start:min(start+batch, len(req.Input))]
		vecs, err := c.embedBatch(ctx, req.Model, part, retry)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(vecs) > 0 && len(vecs[0]) != len(out[0]) {
			return nil, fmt.Errorf("%w: vectors of %d and %d dimensions", ErrInvalidResponse, len(out[0]), len(vecs[0]))
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// embedBody is the request's JSON. encoding_format is left at its default,
// "float": base64 saves bytes on the wire but not every server offers it.
type embedBody struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// embedding is the part of an Embeddings answer Parley reads. The data
// carry their index: the order of the array is not promised.
type embedding struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Error *apiError `json:"error"`
}

func (c *Client) embedBatch(ctx context.Context, model string, input []string, retry Retry) ([][]float32, error) {
	body, err := json.Marshal(embedBody{Model: model, Input: input})
	if err != nil {
		return nil, err
	}
	res, err := c.send(ctx, strings.TrimRight(c.BaseURL, "/")+"/embeddings", body, retry)
	if err != nil {
		return nil, err
	}
	defer drain(res)
	if res.StatusCode >= 400 {
		return nil, statusError(res)
	}
	var e embedding
	if err := decodeJSON(res.Body, &e); err != nil {
		return nil, err
	}
	if e.Error != nil {
		return nil, e.Error.asError(res.StatusCode)
	}
	if len(e.Data) != len(input) {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrInvalidResponse, len(e.Data), len(input))
	}
	out := make([][]float32, len(input))
	for _, d := range e.Data {
		switch {
		case d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil:
			return nil, fmt.Errorf("%w: vector index %d out of place", ErrInvalidResponse, d.Index)
		case len(d.Embedding) == 0 || len(d.Embedding) != len(e.Data[0].Embedding):
			return nil, fmt.Errorf("%w: vectors of different lengths", ErrInvalidResponse)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// send posts a JSON body, retrying as retry says within ctx, and returns
// the final answer for the caller to read and drain (an error status
// included, when it is not worth a retry).
func (c *Client) send(ctx context.Context, url string, body []byte, retry Retry) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		res, err := c.post(ctx, url, body, false)
		if ctx.Err() != nil {
			if res != nil {
				drain(res)
			}
			return nil, ctx.Err()
		}
		wait, again := retry.next(attempt, res, err)
		if !again {
			return res, err
		}
		if res != nil {
			drain(res)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
}
