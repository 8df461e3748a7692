package widgetapi

import (
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"parley/internal/chat"
	"parley/internal/httpx"
)

// wantsStream: the client accepts server-sent events (Accept:
// text/event-stream, alone or among other types, and not refused with
// q=0). Without it the chat answers its JSON body as the spec says.
func wantsStream(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(h, ",") {
			t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || t != "text/event-stream" {
				continue
			}
			q, qerr := strconv.ParseFloat(params["q"], 64)
			return params["q"] == "" || qerr != nil || q > 0
		}
	}
	return false
}

// chatStream answers a chat as server-sent events (docs/api.md): "delta"
// events with the AI's text as it is written, then one "done" event whose
// data is the JSON body the plain call answers, and the end. Nothing is
// written before the first piece of text, so an error until then is
// answered with its status code like any other; after it, with an "error"
// event. A visitor who goes away ends the AI call (the request's context):
// their message is kept, the unfinished reply is not (chat.Chat).
func (a *API) chatStream(w http.ResponseWriter, r *http.Request, in chat.ChatInput) {
	ev := &eventWriter{w: w, rc: http.NewResponseController(w)}
	in.OnDelta = func(text string) {
		data, _ := json.Marshal(delta{Text: text})
		ev.send("delta", data)
	}
	res, err := a.chat.Chat(r.Context(), in)
	switch {
	case r.Context().Err() != nil && ev.started:
		return // the visitor left: no one to tell
	case err != nil && !ev.started:
		httpx.Error(w, r, err)
	case err != nil:
		status, body := httpx.Status(err)
		data, _ := json.Marshal(streamError{ErrorBody: body, Status: status})
		ev.send("error", data)
	default:
		// The same bytes as the plain call's body, without its final
		// newline (an event's data is one line).
		data, _ := json.Marshal(chatBody(res))
		ev.send("done", data)
	}
}

// delta is a "delta" event's data: JSON, so that text with line breaks
// stays one data line.
type delta struct {
	Text string `json:"text"`
}

// streamError is an "error" event's data: the error body and the status
// the plain call would have answered with.
type streamError struct {
	httpx.ErrorBody
	Status int `json:"status"`
}

// eventWriter writes server-sent events, each flushed at once.
type eventWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

var (
	eventStream = []string{"text/event-stream; charset=utf-8"}
	noCache     = []string{"no-cache"}
	no          = []string{"no"}
	noSniff     = []string{"nosniff"}
)

func (e *eventWriter) send(event string, data []byte) {
	if !e.started {
		e.started = true
		h := e.w.Header()
		h["Content-Type"] = eventStream
		h["Cache-Control"] = noCache
		// nginx (and proxies that honour it) pass each event on at once
		// instead of buffering the response (deploy/nginx.conf).
		h["X-Accel-Buffering"] = no
		h["X-Content-Type-Options"] = noSniff
		e.w.WriteHeader(http.StatusOK)
	}
	buf := make([]byte, 0, len(event)+len(data)+16)
	buf = append(buf, "event: "...)
	buf = append(buf, event...)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	// A failed write means the visitor left; the request's context ends
	// the AI call.
	if _, err := e.w.Write(buf); err == nil {
		_ = e.rc.Flush()
	}
}
