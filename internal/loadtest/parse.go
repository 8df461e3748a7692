package loadtest

import (
	"bytes"
	"errors"
	"strconv"
)

// answer is one HTTP/1.1 response, parsed from the bytes read so far.
type answer struct {
	status  int
	body    []byte // aliases the input, or the chunk buffer for a chunked body
	size    int    // bytes of the input the response took
	closing bool   // Connection: close, or a body that ran to the end of the connection
}

// errIncomplete: the bytes so far are the start of a response, not all of
// it. Read more and parse again.
var errIncomplete = errors.New("incomplete HTTP response")

var errMalformed = errors.New("malformed HTTP response")

// parseAnswer parses the response at the start of in, which holds every
// byte read since the request was sent; atEOF says the connection has
// ended after them. A chunked body is decoded into *chunks, reused from
// one call to the next. Both engines read into a buffer and call this
// until it stops answering errIncomplete: one parser, whichever reads.
//
// Only what a client waiting for each answer needs: the status line,
// Content-Length or chunked (which wins, RFC 9112 section 6.3), a body
// running to the close when there is neither, no body for 1xx, 204 and
// 304, and Connection: close.
func parseAnswer(in []byte, atEOF bool, chunks *[]byte) (answer, error) {
	var a answer
	// A start that cannot be HTTP fails at once, not at a timeout.
	if n := min(len(in), 7); !bytes.Equal(in[:n], []byte("HTTP/1.")[:n]) {
		return a, errMalformed
	}
	line, ok := lineAt(in, 0)
	if !ok {
		if atEOF {
			return a, errMalformed
		}
		return a, errIncomplete
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
		return a, errMalformed
	}
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return a, errMalformed
		}
		a.status = a.status*10 + int(d-'0')
	}
	end := bytes.Index(in, []byte("\r\n\r\n"))
	if end < 0 {
		if atEOF {
			return a, errMalformed
		}
		return a, errIncomplete
	}
	rest := in[len(line)+2 : end+2] // the header lines, each with its CRLF
	length, chunked := -1, false
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return a, errMalformed
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 {
				return a, errMalformed
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			a.closing = bytes.EqualFold(value, []byte("close"))
		}
	}
	body := in[end+4:]
	switch {
	case a.status < 200 || a.status == 204 || a.status == 304:
		// No body, whatever the headers say (RFC 9112, section 6.3).
		a.size = end + 4
	case chunked:
		n, err := dechunk(body, chunks)
		if err == errIncomplete && atEOF {
			return a, errMalformed
		}
		if err != nil {
			return a, err
		}
		a.body, a.size = *chunks, end+4+n
	case length >= 0:
		if len(body) < length {
			if atEOF {
				return a, errMalformed
			}
			return a, errIncomplete
		}
		a.body, a.size = body[:length], end+4+length
	default: // no length: the body runs to the end of the connection
		if !atEOF {
			return a, errIncomplete
		}
		a.body, a.size, a.closing = body, len(in), true
	}
	return a, nil
}

// dechunk decodes a chunked body at the start of in into *out and returns
// how many bytes of in it took, through the trailers' empty line.
func dechunk(in []byte, out *[]byte) (int, error) {
	*out = (*out)[:0]
	at := 0
	for {
		line, ok := lineAt(in, at)
		if !ok {
			return 0, errIncomplete
		}
		at += len(line) + 2
		size, _, _ := bytes.Cut(line, []byte(";")) // a chunk extension is ignored
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 32)
		if err != nil || n < 0 {
			return 0, errMalformed
		}
		if n == 0 {
			// Trailers, then the empty line.
			for {
				t, ok := lineAt(in, at)
				if !ok {
					return 0, errIncomplete
				}
				at += len(t) + 2
				if len(t) == 0 {
					return at, nil
				}
			}
		}
		if len(in)-at < int(n)+2 {
			return 0, errIncomplete
		}
		*out = append(*out, in[at:at+int(n)]...)
		if in[at+int(n)] != '\r' || in[at+int(n)+1] != '\n' {
			return 0, errMalformed
		}
		at += int(n) + 2
	}
}

// lineAt is the line starting at in[at], without its CRLF; false when its
// end has not arrived yet.
func lineAt(in []byte, at int) ([]byte, bool) {
	i := bytes.Index(in[at:], []byte("\r\n"))
	if i < 0 {
		return nil, false
	}
	return in[at : at+i], true
}

// appendRequest appends the request do sends: a body, even an empty one,
// comes with its type and length; nil, without.
func appendRequest(out []byte, method, target, host string, body []byte) []byte {
	out = append(out, method...)
	out = append(out, ' ')
	out = append(out, target...)
	out = append(out, " HTTP/1.1\r\nHost: "...)
	out = append(out, host...)
	out = append(out, "\r\nUser-Agent: parley-load\r\n"...)
	if body != nil {
		out = append(out, "Content-Type: application/json\r\nContent-Length: "...)
		out = strconv.AppendInt(out, int64(len(body)), 10)
		out = append(out, "\r\n"...)
	}
	out = append(out, "\r\n"...)
	return append(out, body...)
}
