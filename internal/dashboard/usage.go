package dashboard

import (
	"fmt"
	"net/http"
	"time"

	"parley/internal/domain"
	"parley/internal/quota"
)

// chartDays is how many days the chart shows, today included.
const chartDays = 30

// usageData is the usage page. Money is in the account's currency-agnostic
// cents, shown as units with two decimals.
type usageData struct {
	Period        string
	Conversations int
	Allowance     int
	Percent       int    // of the allowance, rounded down
	Meter         int    // the filled part of the meter, 0 to 100
	Level         string // "", "warn" (80% of the allowance) or "full" (all of it)

	OverageOn            bool
	OverageConversations int
	OverageCost          string
	OveragePrice         string
	SpendCap             string
	CapPercent           int    // of the spend cap used by overage
	CapLevel             string // "", "warn" (80% of the cap) or "full" (the next overage conversation is refused)

	Blocked bool
	Reason  string // "quota" or "spend_cap" while blocked

	Tokens domain.Tokens // the LLM tokens of the month's AI replies; zero is not shown

	Chart chartData
}

// usageFigures works out the page's numbers and warning levels from the
// account's limits and this period's usage. Blocked comes from quota, the
// rule the store applies, so the page never disagrees with what visitors
// get.
func usageFigures(l domain.Limits, u domain.Usage) usageData {
	d := usageData{
		Period:               u.Period,
		Conversations:        u.Conversations,
		Allowance:            l.MonthlyConversations,
		OverageOn:            l.OveragePriceCents > 0,
		OverageConversations: u.OverageConversations,
		OverageCost:          formatCents(u.OverageCents),
		OveragePrice:         formatCents(l.OveragePriceCents),
		SpendCap:             formatCents(l.SpendCapCents),
		Tokens:               u.Tokens,
	}
	d.Blocked, d.Reason = quota.Blocked(l, u)
	// A zero allowance is used up from the start: every conversation is
	// overage or refused.
	d.Percent = 100
	if l.MonthlyConversations > 0 {
		d.Percent = u.Conversations * 100 / l.MonthlyConversations
	}
	d.Meter = min(d.Percent, 100)
	switch {
	case d.Percent >= 100:
		d.Level = "full"
	case d.Percent >= 80:
		d.Level = "warn"
	}
	d.CapPercent = 100
	if l.SpendCapCents > 0 {
		d.CapPercent = int(u.OverageCents * 100 / l.SpendCapCents)
	}
	// The cap is "full" as soon as the next overage conversation would pass
	// it, which can be short of 100% when the price does not divide the cap.
	switch {
	case d.Reason == "spend_cap":
		d.CapLevel = "full"
	case d.OverageOn && d.Level == "full" && d.CapPercent >= 80:
		d.CapLevel = "warn"
	}
	return d
}

// formatCents formats cents as units with two decimals: 125 → "1.25".
func formatCents(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// chartData is the bar chart's geometry, worked out here so the template
// only places numbers into SVG attributes (html/template escapes them like
// any other value; no markup is built from strings).
type chartData struct {
	Width, Height int // the viewBox
	Left, Right   int // the plot area's x range
	Top, Base     int // the plot area's top and its baseline
	YMax          int // the value at the top of the y axis
	MaxCount      int // the largest day
	Total         int
	From, To      string // the first and last day
	Bars          []chartBar
	Labels        []chartLabel
}

type chartBar struct {
	X, Y, W, H int
	Day        string // 2006-01-02
	Count      int
}

type chartLabel struct {
	X      int
	Text   string
	Anchor string // SVG text-anchor
}

// The chart's viewBox; the stylesheet scales it to the page width.
const (
	chartWidth  = 720
	chartHeight = 240
	chartLeft   = 44  // room for the y-axis labels
	chartTop    = 12  // room for the top label's upper half
	chartBase   = 212 // leaves room below for the date labels
)

// barChart lays out one bar per day. Bars scale to the busiest day; a day
// with any conversation gets at least one unit of height so it never looks
// empty. Dates are labelled weekly counting back from today, so today is
// always labelled.
func barChart(days []domain.DayCount) chartData {
	c := chartData{Width: chartWidth, Height: chartHeight, Left: chartLeft, Top: chartTop, Base: chartBase}
	n := len(days)
	if n == 0 {
		c.Right = chartWidth - 10
		c.YMax = 1
		return c
	}
	slot := (chartWidth - 10 - chartLeft) / n
	c.Right = chartLeft + slot*n
	barW := max(slot*2/3, 1)
	for _, d := range days {
		c.Total += d.Count
		c.MaxCount = max(c.MaxCount, d.Count)
	}
	c.YMax = max(c.MaxCount, 1)
	plotH := chartBase - chartTop
	c.From, c.To = isoDay(days[0].Day), isoDay(days[n-1].Day)
	for i, d := range days {
		h := d.Count * plotH / c.YMax
		if d.Count > 0 {
			h = max(h, 1)
		}
		x := chartLeft + i*slot
		c.Bars = append(c.Bars, chartBar{X: x + (slot-barW)/2, Y: chartBase - h, W: barW, H: h, Day: isoDay(d.Day), Count: d.Count})
		if (n-1-i)%7 != 0 {
			continue
		}
		l := chartLabel{X: x + slot/2, Text: isoDay(d.Day), Anchor: "middle"}
		if i == n-1 { // keep the last date inside the chart
			l.X, l.Anchor = x+slot, "end"
		}
		c.Labels = append(c.Labels, l)
	}
	return c
}

func isoDay(t time.Time) string { return t.UTC().Format("2006-01-02") }

// Usage shows this month's conversations against the allowance, overage
// and the spend cap, and conversations per day. Operators see it too
// (behind requireUser): it is read-only, and it tells them why new
// conversations may be refused.
func (d *Dashboard) Usage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	acc, err := d.Store.AccountByID(ctx, user(r).AccountID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	now := d.Now().UTC()
	use, err := d.Store.Usage(ctx, acc.ID, quota.Period(now))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	days, err := d.Store.ConversationsPerDay(ctx, acc.ID, today.AddDate(0, 0, 1-chartDays), today.AddDate(0, 0, 1))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data := usageFigures(acc.Limits, use)
	data.Period = quota.Period(now) // the period asked for, whatever the store fills in
	data.Chart = barChart(days)
	d.render(w, r, http.StatusOK, "usage", view{Title: "usage.title", Nav: "usage", Data: data})
}
