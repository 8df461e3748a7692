package llm

import (
	"regexp"
	"strconv"
	"strings"

	"parley/internal/agent"
	"parley/web/i18n"
)

// noAnswerMarker is what the model is told to begin its reply with when the
// passages and the conversation do not answer the visitor. It is found in
// any case and with spaces inside the brackets, in JSON replies and plain
// text alike, so a model that ignores the JSON format still reports a miss.
const noAnswerMarker = "[NO_ANSWER]"

var (
	noAnswerRE = regexp.MustCompile(`(?i)\[\s*NO[_ ]ANSWER\s*\]`)
	// citeRE is one citation: a bracketed list of passage numbers, "[2]",
	// "[1, 3]" or "[1][2]" (two of them), with the blanks before it.
	citeRE = regexp.MustCompile(`[ \t]*\[\s*\d{1,3}(?:\s*,\s*\d{1,3})*\s*\]`)
	blanks = regexp.MustCompile(`[ \t]{2,}`)
)

// ground applies what the system prompt asked of the model to its reply:
//   - the no-answer marker makes the reply unanswered (it counts as a miss
//     towards the handoff rule) and is removed; the model's own sentence
//     after it is kept, as it is in the visitor's language, and when there
//     is none the visitor gets the built-in "don't know" text in lang;
//   - citations of passage numbers are removed from the text and the quick
//     replies, and the reply's sources are the sources of the passages
//     cited, best passage first, each once; nil when it cites none, or
//     when it is unanswered. Bracketed numbers that are not passage
//     numbers ("[7]" when four passages were given) are left alone: they
//     are the model's text, not a citation.
func ground(r agent.Reply, passages []agent.Passage, lang string) agent.Reply {
	if noAnswerRE.MatchString(r.Text) {
		r.Unanswered = true
		r.Text = noAnswerRE.ReplaceAllString(r.Text, " ")
	}
	var cited []bool
	r.Text, cited = stripCitations(r.Text, len(passages))
	var options []string
	for _, o := range r.Options {
		o, _ = stripCitations(noAnswerRE.ReplaceAllString(o, " "), len(passages))
		if o != "" {
			options = append(options, o)
		}
	}
	r.Options = options

	r.Sources = nil
	if r.Unanswered {
		if r.Text == "" {
			r.Text = i18n.Text(lang, "reply.unknown")
		}
		return r
	}
	var used []agent.Passage
	for i, p := range passages {
		if cited[i] {
			used = append(used, p)
		}
	}
	r.Sources = agent.Sources(used)
	return r
}

// stripCitations removes the citations of passages 1..n from s and tidies
// the blanks they leave; cited[i] tells whether passage i+1 was cited.
func stripCitations(s string, n int) (string, []bool) {
	cited := make([]bool, n)
	s = citeRE.ReplaceAllStringFunc(s, func(m string) string {
		nums, ok := citedNumbers(m, n)
		if !ok {
			return m
		}
		for _, k := range nums {
			cited[k-1] = true
		}
		return ""
	})
	s = blanks.ReplaceAllString(s, " ")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), cited
}

// citedNumbers reads the numbers of one citation, and false when any of
// them is not a passage number.
func citedNumbers(m string, n int) ([]int, bool) {
	inner := strings.Trim(strings.TrimSpace(m), "[]")
	var nums []int
	for f := range strings.SplitSeq(inner, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 || k > n {
			return nil, false
		}
		nums = append(nums, k)
	}
	return nums, true
}
