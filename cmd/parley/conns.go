package main

import (
	"log/slog"
	"net"

	"parley/internal/clientip"
	"parley/internal/config"
	"parley/internal/connlimit"
	"parley/internal/metrics"
)

// lowFileLimit is an open-files limit worth a warning: a few hundred
// visitors' connections would take it.
const lowFileLimit = 4096

// limitConns wraps the server's TCP listener in the connection limits
// (docs/operations.md, "Connections and file descriptors"). The budget
// comes from the open-files limit, which Go has already raised to the hard
// limit; PARLEY_MAX_CONNS may lower it, not pass it.
func limitConns(tcp net.Listener, cfg config.Config, log *slog.Logger) *connlimit.Listener {
	soft, hard, err := connlimit.DescriptorLimit()
	budget := connlimit.Budget(soft)
	if err != nil {
		log.Warn("open-files limit unknown; no connection budget unless PARLEY_MAX_CONNS sets one", "err", err)
	} else if soft < lowFileLimit {
		log.Warn("low open-files limit: raise LimitNOFILE (systemd) or ulimits.nofile (Docker)",
			"limit", soft, "hard_limit", hard, "recommended", 65536)
	}
	switch {
	case cfg.MaxConns == 0:
	case budget > 0 && cfg.MaxConns > budget:
		log.Warn("PARLEY_MAX_CONNS is over what the open-files limit allows; using the limit's budget",
			"max_conns", cfg.MaxConns, "budget", budget, "limit", soft)
	default:
		budget = cfg.MaxConns
	}
	log.Info("connections", "open_files_limit", soft, "hard_limit", hard, "budget", budget, "max_per_ip", cfg.MaxConnsPerIP)
	return connlimit.New(tcp, connlimit.Options{
		Budget: budget, PerClient: cfg.MaxConnsPerIP, Logger: log,
		// Proxies carry many visitors: only the budget applies to them.
		Exempt: clientip.New(cfg.TrustedProxies).Trusted,
	})
}

// connMetrics exports the connection counts on /metrics.
func connMetrics(reg *metrics.Registry, l *connlimit.Listener) {
	for _, g := range []struct {
		name, help string
		value      func(connlimit.Stats) float64
	}{
		{"parley_connections_open", "Client connections open, parked long polls included.", func(s connlimit.Stats) float64 { return float64(s.Open) }},
		{"parley_connections_idle", "Open connections between requests (closable under pressure).", func(s connlimit.Stats) float64 { return float64(s.Idle) }},
		{"parley_connections_budget", "Most client connections open at once (0: none).", func(s connlimit.Stats) float64 { return float64(s.Budget) }},
		{"parley_connections_cut", "Idle connections closed to make room, since start.", func(s connlimit.Stats) float64 { return float64(s.Cut) }},
		{"parley_connections_refused_per_ip", "Connections refused over the per-IP cap (429), since start.", func(s connlimit.Stats) float64 { return float64(s.RefusedPerClient) }},
		{"parley_connections_refused_budget", "Connections refused over the budget (503), since start.", func(s connlimit.Stats) float64 { return float64(s.RefusedBudget) }},
	} {
		reg.GaugeFunc(g.name, g.help, func() float64 { return g.value(l.Stats()) })
	}
}
