package dashboard

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// usageNow is the dashboard's clock in the usage tests: the 20th, so the
// chart's 30 days reach back into the previous month.
var usageNow = time.Date(2026, 3, 20, 15, 30, 0, 0, time.UTC)

// conversations starts n conversations of the test agent at t.
func (td *testDash) conversations(n int, t time.Time) {
	td.t.Helper()
	for range n {
		_, err := td.st.CreateConversation(context.Background(), store.NewConversation{
			AgentID: td.agent.ID, AccountID: td.agent.AccountID, VisitorID: "v_test", CreatedAt: t})
		if err != nil {
			td.t.Fatal(err)
		}
	}
}

func (td *testDash) setLimits(l domain.Limits) {
	td.t.Helper()
	if err := td.st.SetLimits(context.Background(), td.owner.AccountID, l); err != nil {
		td.t.Fatal(err)
	}
}

// usageText is the page with tags removed and spaces collapsed, to check
// sentences that the template breaks across elements, entities decoded.
func usageText(body string) string {
	return html.UnescapeString(strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(body, " ")), " "))
}

func TestUsageWarnings(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	td.d.Now = func() time.Time { return usageNow }
	owner := td.withSession(td.owner)
	td.setLimits(domain.Limits{MonthlyConversations: 10})
	// Last month's conversations do not count this month.
	td.conversations(4, usageNow.AddDate(0, 0, -25))
	td.conversations(7, usageNow)

	p := owner.get("/usage")
	text := usageText(p.body)
	if p.status != 200 {
		t.Fatalf("usage: %d", p.status)
	}
	for _, want := range []string{"2026-03", "7 of 10", "(70%)", "New conversations Accepted.", "Overage Off"} {
		if !strings.Contains(text, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	if strings.Contains(p.body, `class="warning"`) || strings.Contains(p.body, `class="error"`) {
		t.Error("a warning below 80%")
	}

	td.conversations(1, usageNow)
	p = owner.get("/usage")
	if !strings.Contains(p.body, `<p class="warning" role="status">80% or more of this month&#39;s allowance is used (8 of 10).</p>`) {
		t.Error("no warning at 80%")
	}
	if strings.Contains(p.body, `class="error"`) {
		t.Error("an error at 80%")
	}

	// At 100% with overage off, new conversations are refused.
	td.conversations(2, usageNow)
	p = owner.get("/usage")
	text = usageText(p.body)
	if !strings.Contains(p.body, `<div role="alert">`) || !strings.Contains(p.body, `<p class="error">`) ||
		!strings.Contains(text, "This month's allowance is used up and overage is off: new conversations are refused until next month.") ||
		!strings.Contains(text, "Refused: the monthly allowance is used up and overage is off.") ||
		!strings.Contains(text, "10 of 10") {
		t.Error("no error at 100% with overage off")
	}

	// With overage on, the error says so and how much of the cap is used.
	td.setLimits(domain.Limits{MonthlyConversations: 10, OveragePriceCents: 125, SpendCapCents: 1000})
	td.conversations(2, usageNow)
	text = usageText(owner.get("/usage").body)
	for _, want := range []string{
		"This month's allowance is used up. New conversations are billed as overage at 1.25 each, up to the spend cap of 10.00.",
		"Overage so far: 2.50 of the 10.00 spend cap (25%).",
		"Overage conversations 2", "Overage cost 2.50", "Spend cap 10.00 (25%)", "Price per overage conversation 1.25",
		"12 of 10", "New conversations Accepted.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("overage: the page lacks %q", want)
		}
	}
	if strings.Contains(text, "of the spend cap is used") {
		t.Error("a spend-cap warning at 25%")
	}

	// 80% of the cap: a warning.
	td.conversations(5, usageNow) // 7 overage: 8.75 of 10.00
	p = owner.get("/usage")
	if !strings.Contains(p.body, `<p class="warning" role="status">80% or more of the spend cap is used (8.75 of 10.00).</p>`) {
		t.Error("no warning at 80% of the spend cap")
	}
	// The next conversation would pass the cap: refused.
	td.conversations(1, usageNow) // 10.00 of 10.00
	text = usageText(owner.get("/usage").body)
	for _, want := range []string{
		"The spend cap is reached: new conversations are refused until next month.",
		"Refused: the overage spend cap is reached.", "(100%)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("cap reached: the page lacks %q", want)
		}
	}
}

func TestUsageChart(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	td.d.Now = func() time.Time { return usageNow }
	td.conversations(2, usageNow.AddDate(0, 0, -30)) // before the chart
	td.conversations(3, usageNow.AddDate(0, 0, -29)) // its first day
	td.conversations(6, usageNow.AddDate(0, 0, -1))
	td.conversations(1, usageNow)

	// Operators see usage too (read-only).
	op := td.newUser("op@example.com", "Oleg", td.owner.AccountID)
	p := td.withSession(op).get("/usage")
	if p.status != 200 {
		t.Fatalf("operator's usage: %d", p.status)
	}
	for _, want := range []string{
		`<svg class="chart" role="img" aria-labelledby="usage-chart-title usage-chart-desc"`,
		`<title id="usage-chart-title">Conversations per day, last 30 days</title>`,
		`<desc id="usage-chart-desc">From 2026-02-19 to 2026-03-20 (UTC). Total: 10; most in one day: 6.</desc>`,
		`<title>2026-03-19: 6</title>`,
		`<th scope="row">2026-02-19</th><td>3</td>`,
		`<th scope="row">2026-03-20</th><td>1</td>`,
		`<th scope="row">2026-03-01</th><td>0</td>`,
		`<div class="sr-only">`, `<caption>`, `<th scope="col">Day</th>`,
		`>2026-03-20</text>`, `>2026-03-13</text>`, // weekly date labels, today included
		`dy="4" text-anchor="end" font-size="12" fill="#4d5561">6</text>`, // the y axis's max
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("chart lacks %s", want)
		}
	}
	if n := strings.Count(p.body, `<rect class="bar"`); n != 30 {
		t.Errorf("%d bars, want 30", n)
	}
	if n := strings.Count(p.body, `<th scope="row">`); n != 30 {
		t.Errorf("%d table rows, want 30", n)
	}
	if strings.Contains(p.body, "2026-02-18") {
		t.Error("the chart shows a 31st day")
	}
}

func TestBarChartGeometry(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var days []domain.DayCount
	for i := range 30 {
		days = append(days, domain.DayCount{Day: start.AddDate(0, 0, i)})
	}
	days[3].Count, days[4].Count = 1000, 1
	c := barChart(days)
	if len(c.Bars) != 30 || c.YMax != 1000 || c.Total != 1001 {
		t.Fatalf("bars %d, max %d, total %d", len(c.Bars), c.YMax, c.Total)
	}
	if b := c.Bars[3]; b.Y != c.Top || b.Y+b.H != c.Base {
		t.Errorf("the busiest day does not fill the plot: %+v", b)
	}
	if b := c.Bars[4]; b.H != 1 {
		t.Errorf("a small day is invisible: %+v", b)
	}
	if b := c.Bars[0]; b.H != 0 || b.Y != c.Base {
		t.Errorf("an empty day has a bar: %+v", b)
	}
	last := c.Bars[29]
	if last.X+last.W > c.Right || c.Right > c.Width {
		t.Errorf("the bars overflow the chart: %+v, right %d", last, c.Right)
	}
	for i := 1; i < 30; i++ {
		if c.Bars[i].X <= c.Bars[i-1].X+c.Bars[i-1].W-1 {
			t.Fatalf("bars %d and %d overlap", i-1, i)
		}
	}
	if len(c.Labels) != 5 || c.Labels[4].Text != "2026-01-30" || c.Labels[4].Anchor != "end" || c.Labels[4].X > c.Width {
		t.Errorf("labels: %+v", c.Labels)
	}
	// No conversations at all: an axis from 0 to 1 and no division by zero.
	if c := barChart(make([]domain.DayCount, 30)); c.YMax != 1 || c.MaxCount != 0 {
		t.Errorf("empty chart: max %d", c.YMax)
	}
	if c := barChart(nil); len(c.Bars) != 0 {
		t.Error("bars without days")
	}
}

func TestUsageFigures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name            string
		l               domain.Limits
		u               domain.Usage
		percent, meter  int
		level, capLevel string
		reason          string
	}{
		{"empty", domain.Limits{MonthlyConversations: 100}, domain.Usage{}, 0, 0, "", "", ""},
		{"79%", domain.Limits{MonthlyConversations: 100}, domain.Usage{Conversations: 79}, 79, 79, "", "", ""},
		{"80%", domain.Limits{MonthlyConversations: 100}, domain.Usage{Conversations: 80}, 80, 80, "warn", "", ""},
		{"full", domain.Limits{MonthlyConversations: 100}, domain.Usage{Conversations: 100}, 100, 100, "full", "", "quota"},
		{"zero allowance", domain.Limits{}, domain.Usage{}, 100, 100, "full", "", "quota"},
		{"overage", domain.Limits{MonthlyConversations: 10, OveragePriceCents: 50, SpendCapCents: 1000},
			domain.Usage{Conversations: 15, OverageConversations: 5, OverageCents: 250}, 150, 100, "full", "", ""},
		{"cap 80%", domain.Limits{MonthlyConversations: 10, OveragePriceCents: 50, SpendCapCents: 1000},
			domain.Usage{Conversations: 26, OverageConversations: 16, OverageCents: 800}, 260, 100, "full", "warn", ""},
		// 200 of 250 is 80%, and the next 100 would pass the cap.
		{"cap short of 100%", domain.Limits{MonthlyConversations: 1, OveragePriceCents: 100, SpendCapCents: 250},
			domain.Usage{Conversations: 3, OverageConversations: 2, OverageCents: 200}, 300, 100, "full", "full", "spend_cap"},
		{"no cap", domain.Limits{MonthlyConversations: 1, OveragePriceCents: 100},
			domain.Usage{Conversations: 1}, 100, 100, "full", "full", "spend_cap"},
	} {
		d := usageFigures(tt.l, tt.u)
		if d.Percent != tt.percent || d.Meter != tt.meter || d.Level != tt.level || d.CapLevel != tt.capLevel || d.Reason != tt.reason || d.Blocked != (tt.reason != "") {
			t.Errorf("%s: %+v", tt.name, d)
		}
	}
	for cents, want := range map[int64]string{0: "0.00", 5: "0.05", 125: "1.25", 100000: "1000.00", -250: "-2.50"} {
		if got := formatCents(cents); got != want {
			t.Errorf("formatCents(%d) = %q, want %q", cents, got, want)
		}
	}
}

func TestUsageInOtherLanguages(t *testing.T) {
	t.Parallel()
	td := newTestDash(t, usageTeamRoutes)
	td.d.Now = func() time.Time { return usageNow }
	td.setLimits(domain.Limits{MonthlyConversations: 2})
	td.conversations(2, usageNow)
	b := td.withSession(td.owner)
	for lang, want := range map[string]string{
		"ro": "Limita lunară este epuizată și depășirea este dezactivată",
		"ru": "Месячный лимит исчерпан, а превышение отключено",
	} {
		req, _ := http.NewRequest("GET", td.srv.URL+"/usage", nil)
		req.Header.Set("Accept-Language", lang)
		if p := b.do(req); !strings.Contains(p.body, want) || !strings.Contains(p.body, `lang="`+lang+`"`) {
			t.Errorf("%s: the page lacks %q", lang, want)
		}
	}
}
