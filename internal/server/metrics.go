package server

import (
	"context"
	"errors"
	"strconv"
	"time"

	"parley/internal/domain"
	"parley/internal/metrics"
	"parley/internal/ratelimit"
)

// Metrics are the service's Prometheus series. It also implements
// chat.Observer, so the chat service reports AI calls and quota refusals.
type Metrics struct {
	requests     *metrics.CounterVec
	latency      *metrics.HistogramVec
	aiLatency    *metrics.HistogramVec
	aiErrors     *metrics.CounterVec
	rateRefusals *metrics.CounterVec
	quotaRefused *metrics.CounterVec
}

func NewMetrics(reg *metrics.Registry) *Metrics {
	return &Metrics{
		requests: reg.Counter("parley_http_requests_total",
			"HTTP requests by route and status.", "route", "status"),
		latency: reg.Histogram("parley_http_request_duration_seconds",
			"HTTP request latency by route.", metrics.DefBuckets, "route"),
		aiLatency: reg.Histogram("parley_ai_duration_seconds",
			"Time the AI agent took to answer, by outcome.", metrics.DefBuckets, "outcome"),
		aiErrors: reg.Counter("parley_ai_errors_total",
			"AI agent failures by kind (timeout, unavailable).", "kind"),
		rateRefusals: reg.Counter("parley_ratelimit_refused_total",
			"Widget API requests refused by the per-IP rate limit."),
		quotaRefused: reg.Counter("parley_quota_refused_total",
			"New conversations refused because the account is blocked, by reason.", "reason"),
	}
}

// Gauges registers series read at scrape time: waiting long polls and the
// rate limiter's health (its table in memory, or Redis failures).
func (m *Metrics) Gauges(reg *metrics.Registry, waitingPolls func() int, limiter ratelimit.Limiter) {
	reg.GaugeFunc("parley_longpolls_waiting", "Long polls waiting for an operator message or a mode change.",
		func() float64 { return float64(waitingPolls()) })
	switch l := limiter.(type) {
	case *ratelimit.Memory:
		reg.GaugeFunc("parley_ratelimit_tracked_addresses", "Client addresses the rate limiter tracks in the current window.",
			func() float64 { return float64(l.Tracked()) })
		reg.GaugeFunc("parley_ratelimit_overflowed_requests", "Requests let through uncounted because the limiter's table was full.",
			func() float64 { return float64(l.Overflows()) })
	case *ratelimit.Redis:
		reg.GaugeFunc("parley_ratelimit_redis_failures", "Requests let through uncounted because Redis did not answer (fail open).",
			func() float64 { return float64(l.Failures()) })
	}
}

func (m *Metrics) request(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

func (m *Metrics) rateLimited() {
	if m != nil {
		m.rateRefusals.WithLabelValues().Inc()
	}
}

// AIDone implements chat.Observer.
func (m *Metrics) AIDone(d time.Duration, err error) {
	if m == nil {
		return
	}
	outcome := "ok"
	switch {
	case errors.Is(err, domain.ErrAITimeout):
		outcome = "timeout"
	case errors.Is(err, context.Canceled):
		outcome = "canceled" // the visitor left: not an AI failure
	case err != nil:
		outcome = "unavailable"
	}
	m.aiLatency.WithLabelValues(outcome).Observe(d.Seconds())
	if err != nil && outcome != "canceled" {
		m.aiErrors.WithLabelValues(outcome).Inc()
	}
}

// QuotaRefused implements chat.Observer.
func (m *Metrics) QuotaRefused(reason string) {
	if m != nil {
		m.quotaRefused.WithLabelValues(reason).Inc()
	}
}
