package openaicompat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// chunk is one streamed piece of a completion; an "error" object instead
// of choices is a failure reported mid-stream.
type chunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"delta"`
	} `json:"choices"`
	// Usage comes in the last chunk, whose choices are empty, when the
	// request asked for it (stream_options.include_usage).
	Usage *Usage    `json:"usage"`
	Error *apiError `json:"error"`
}

// readStream assembles the first choice of a streamed completion from its
// server-sent events: "data: {chunk}" lines, each event ended by a blank
// line, until "data: [DONE]" or the end of the body. onDelta, if not nil,
// is handed each piece of content as its chunk is read.
func readStream(r io.Reader, onDelta func(string)) (ChatReply, error) {
	var content, refusal strings.Builder
	var usage Usage
	var event string
	var data bytes.Buffer
	dispatch := func() (done bool, err error) {
		defer func() { event = ""; data.Reset() }()
		payload := bytes.TrimSpace(data.Bytes())
		if len(payload) == 0 {
			return false, nil
		}
		if string(payload) == "[DONE]" {
			return true, nil
		}
		var c chunk
		if err := json.Unmarshal(payload, &c); err != nil {
			return false, fmt.Errorf("%w: a stream chunk: %v", ErrInvalidResponse, err)
		}
		if c.Error != nil || event == "error" {
			if c.Error == nil {
				c.Error = &apiError{}
			}
			return false, c.Error.asError(200)
		}
		if c.Usage != nil {
			usage = validUsage(c.Usage)
		}
		for _, ch := range c.Choices {
			if ch.Index == 0 {
				content.WriteString(ch.Delta.Content)
				if onDelta != nil && ch.Delta.Content != "" {
					onDelta(ch.Delta.Content)
				}
				refusal.WriteString(ch.Delta.Refusal)
			}
		}
		return false, nil
	}
	// The default 4 KiB buffer: ReadString collects a longer line across
	// fills, and a stream held open for each visitor who reads a reply
	// as it is written costs its buffer for as long (docs/benchmarks.md,
	// "Streaming replies": 64 KiB here was over 40% of a stream's memory).
	lines := bufio.NewReader(r)
	for {
		line, err := lines.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line == "" && err == nil {
			if done, derr := dispatch(); derr != nil || done {
				return ChatReply{Content: content.String(), Refusal: refusal.String(), Usage: usage}, derr
			}
		}
		switch field, value, _ := strings.Cut(line, ":"); field {
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(value, " "))
		case "event":
			event = strings.TrimSpace(value)
		}
		if errors.Is(err, io.EOF) {
			// A body that ends without [DONE] (or without the blank line
			// after the last event) is taken as finished.
			_, derr := dispatch()
			return ChatReply{Content: content.String(), Refusal: refusal.String(), Usage: usage}, derr
		}
		if err != nil {
			return ChatReply{}, err
		}
	}
}
