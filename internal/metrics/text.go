package metrics

import (
	"fmt"
	"slices"
	"strconv"
)

// meta is what every family shares: its name, help and type lines.
type meta struct {
	metricName string
	help       string
	typ        string
	labels     []string
}

func newMeta(name, help, typ string, labels []string) meta {
	if !validName(name, true) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	for i, l := range labels {
		if !validName(l, false) || (len(l) >= 2 && l[:2] == "__") || slices.Contains(labels[:i], l) {
			panic(fmt.Sprintf("metrics: %q: invalid or repeated label name %q", name, l))
		}
	}
	return meta{metricName: name, help: help, typ: typ, labels: slices.Clone(labels)}
}

func (m *meta) name() string { return m.metricName }

func (m *meta) appendHeader(b []byte) []byte {
	b = append(b, "# HELP "...)
	b = append(b, m.metricName...)
	b = append(b, ' ')
	b = appendEscaped(b, m.help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, m.metricName...)
	b = append(b, ' ')
	b = append(b, m.typ...)
	return append(b, '\n')
}

// appendSeries appends `name{label="value",...} ` with an optional extra
// label (le for histogram buckets) last.
func appendSeries(b []byte, name string, labels, values []string, extraLabel, extraValue string) []byte {
	b = append(b, name...)
	if len(labels) > 0 || extraLabel != "" {
		b = append(b, '{')
		for i, l := range labels {
			b = appendLabel(b, l, values[i])
			b = append(b, ',')
		}
		if extraLabel != "" {
			b = appendLabel(b, extraLabel, extraValue)
		} else {
			b = b[:len(b)-1] // the last comma
		}
		b = append(b, '}')
	}
	return append(b, ' ')
}

func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

// appendEscaped escapes backslash and newline, and double quote too in
// label values; HELP text must leave quotes alone.
func appendEscaped(b []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat uses Go's shortest representation, which the Prometheus
// parser reads back exactly, and spells infinities +Inf/-Inf as it wants.
func appendFloat(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// validName checks [a-zA-Z_:][a-zA-Z0-9_:]*; colons only in metric names.
func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c == ':' && colon) || (c >= '0' && c <= '9' && i > 0)
		if !ok {
			return false
		}
	}
	return true
}
