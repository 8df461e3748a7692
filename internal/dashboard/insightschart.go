package dashboard

import (
	"strconv"

	"parley/internal/domain"
	"parley/internal/store"
)

// The insights page's two charts, laid out here as the usage chart is
// (usage.go): the template only places numbers into SVG attributes.

// dayChart is one stacked bar per day, a segment per outcome.
type dayChart struct {
	Width, Height, Left, Right, Top, Base int
	YMax, Total                           int
	From, To                              string
	Bars                                  []dayBar
	Labels                                []chartLabel
}

type dayBar struct {
	X, W     int
	Day      string
	Counts   store.DayOutcomes
	Segments []segment // bottom up: resolved, handed off, unanswered, abandoned
}

type segment struct {
	Y, H    int
	Outcome string // a domain.Outcome, as the templates' helpers take it
	Count   int
}

// outcomeColors are the segments' fills, each with a contrast of 3:1 or
// more against the page's white (WCAG 1.4.11) and told apart by more than
// hue for the common colour blindnesses (blue, orange, dark red, grey);
// the legend and the table beside the chart say the same in words.
var outcomeColors = map[domain.Outcome]string{
	domain.OutcomeResolved:   "#1d4ed8",
	domain.OutcomeHandedOff:  "#b45309",
	domain.OutcomeUnanswered: "#9f1239",
	domain.OutcomeAbandoned:  "#6b7280",
}

// outcomeColor is the fill of outcome o (a template helper).
func outcomeColor(o string) string { return outcomeColors[domain.Outcome(o)] }

func outcomeChart(days []store.DayOutcomes) dayChart {
	c := dayChart{Width: chartWidth, Height: chartHeight, Left: chartLeft, Top: chartTop, Base: chartBase, YMax: 1}
	n := len(days)
	if n == 0 {
		c.Right = chartWidth - 10
		return c
	}
	for _, d := range days {
		c.Total += d.Conversations
		c.YMax = max(c.YMax, d.Conversations)
	}
	slot := (chartWidth - 10 - chartLeft) / n
	c.Right = chartLeft + slot*n
	barW := max(slot*2/3, 1)
	plotH := chartBase - chartTop
	c.From, c.To = isoDay(days[0].Day), isoDay(days[n-1].Day)
	every := max(1, (n+5)/6) // about six date labels, the last day's always
	for i, d := range days {
		x := chartLeft + i*slot
		b := dayBar{X: x + (slot-barW)/2, W: barW, Day: isoDay(d.Day), Counts: d}
		y, sum := chartBase, 0
		for _, o := range domain.Outcomes {
			k := countOf(d, o)
			if k == 0 {
				continue
			}
			sum += k
			top := chartBase - sum*plotH/c.YMax
			h := max(y-top, 1) // every segment stays visible
			y -= h
			b.Segments = append(b.Segments, segment{Y: y, H: h, Outcome: string(o), Count: k})
		}
		c.Bars = append(c.Bars, b)
		if (n-1-i)%every == 0 {
			l := chartLabel{X: x + slot/2, Text: isoDay(d.Day), Anchor: "middle"}
			if i == n-1 {
				l.X, l.Anchor = x+slot, "end"
			}
			if i == 0 && n > 1 {
				l.X, l.Anchor = x, "start"
			}
			c.Labels = append(c.Labels, l)
		}
	}
	return c
}

// countOf is d's count of outcome o.
func countOf(d store.DayOutcomes, o domain.Outcome) int {
	switch o {
	case domain.OutcomeResolved:
		return d.Resolved
	case domain.OutcomeHandedOff:
		return d.HandedOff
	case domain.OutcomeUnanswered:
		return d.Unanswered
	case domain.OutcomeAbandoned:
		return d.Abandoned
	}
	return 0
}

// hourChart is one bar per hour of the UTC day.
type hourChart struct {
	Width, Height, Left, Right, Top, Base int
	YMax, Total                           int
	Bars                                  []hourBar
}

type hourBar struct {
	X, Y, W, H int
	Hour       string // "00" .. "23"
	Label      bool   // every third hour is labelled
	LabelX     int
	Count      int
}

func hoursChart(hours [24]int) hourChart {
	c := hourChart{Width: chartWidth, Height: 180, Left: chartLeft, Top: chartTop, Base: 152, YMax: 1}
	for _, n := range hours {
		c.Total += n
		c.YMax = max(c.YMax, n)
	}
	slot := (chartWidth - 10 - chartLeft) / 24
	c.Right = chartLeft + slot*24
	barW := slot * 2 / 3
	plotH := c.Base - c.Top
	for h, n := range hours {
		bh := n * plotH / c.YMax
		if n > 0 {
			bh = max(bh, 1)
		}
		x := chartLeft + h*slot
		label := strconv.Itoa(h)
		if h < 10 {
			label = "0" + label
		}
		c.Bars = append(c.Bars, hourBar{X: x + (slot-barW)/2, Y: c.Base - bh, W: barW, H: bh, Hour: label, Label: h%3 == 0, LabelX: x + slot/2, Count: n})
	}
	return c
}
