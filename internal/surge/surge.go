// Package surge notices when the number of new conversations an account
// gets jumps: the widget key is public, and someone who starts
// conversations with it from many addresses (each under the per-address
// limit, package initlimit) can still spend the owner's allowance in
// minutes. The owner is told by a banner in the dashboard, the operator of
// the instance by a log line and a metric.
//
// The rule (docs/operations.md): an account surges when it got at least
// Floor conversations in the last Window and at least Factor times its
// usual number per Window, the usual being its average over the Baseline
// before that window. Both numbers come from the database (conversations
// created per account per time range), so every instance sees the same
// surge, whichever instances the conversations came through.
package surge

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"parley/internal/metrics"
)

// The rule's numbers.
const (
	Window   = 10 * time.Minute
	Baseline = 24 * time.Hour
	Factor   = 10
	Floor    = 30
)

// checkEvery spaces an instance's background checks of one account.
const checkEvery = time.Minute

// Surge is an account's recent volume against its usual one.
type Surge struct {
	Recent int     // conversations created in the last Window
	Usual  float64 // the average per Window over the Baseline before it
}

// Counts is what the detector needs of the store.
type Counts interface {
	ConversationsCreated(ctx context.Context, accountID string, from, to time.Time) (int, error)
}

// Options configure a Detector; all are optional.
type Options struct {
	Now      func() time.Time  // default time.Now
	Logger   *slog.Logger      // default slog.Default()
	Registry *metrics.Registry // for parley_init_surges_total and parley_init_surging_accounts
}

// Detector checks accounts against the rule.
type Detector struct {
	counts Counts
	now    func() time.Time
	log    *slog.Logger
	alerts metrics.Counter

	mu      sync.Mutex
	checked map[string]checkState // account → this instance's last background check
	surging map[string]time.Time  // account → when a check last found it surging
	running sync.WaitGroup
}

// New returns a detector counting in c.
func New(c Counts, o Options) *Detector {
	d := &Detector{counts: c, now: o.Now, log: o.Logger, checked: map[string]checkState{}, surging: map[string]time.Time{}}
	if d.now == nil {
		d.now = time.Now
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	if o.Registry != nil {
		d.alerts = o.Registry.Counter("parley_init_surges_total",
			"Surges of new conversations this instance noticed (an account far above its usual volume).").WithLabelValues()
		o.Registry.GaugeFunc("parley_init_surging_accounts",
			"Accounts this instance found in a surge of new conversations within the last 10 minutes.",
			func() float64 {
				d.mu.Lock()
				defer d.mu.Unlock()
				n := 0
				for _, at := range d.surging {
					if d.now().Sub(at) < Window {
						n++
					}
				}
				return float64(n)
			})
	}
	return d
}

// Check applies the rule to the account now. It costs one count on the
// account's index, and a second only when the first reaches Floor.
func (d *Detector) Check(ctx context.Context, accountID string) (Surge, bool, error) {
	now := d.now()
	recent, err := d.counts.ConversationsCreated(ctx, accountID, now.Add(-Window), now)
	if err != nil || recent < Floor {
		return Surge{Recent: recent}, false, err
	}
	before, err := d.counts.ConversationsCreated(ctx, accountID, now.Add(-Window-Baseline), now.Add(-Window))
	if err != nil {
		return Surge{}, false, err
	}
	s := Surge{Recent: recent, Usual: float64(before) / float64(Baseline/Window)}
	return s, float64(recent) >= Factor*s.Usual, nil
}

// checkState is an instance's view of one account's checks.
type checkState struct {
	at       time.Time // the last check started
	since    int       // conversations started here since then
	recent   int       // what the last check counted in the window
	inFlight bool
}

// Observe is told of each conversation an account starts. It checks the
// rule for the account in the background: once a minute, and sooner when
// this instance alone has started Floor of its conversations since the
// last check and at least a tenth as many as that check counted (a burst
// is noticed while it lasts, not a minute later, while an account with a
// steady high volume is not counted over and over). One check per account
// runs at a time. It logs (and counts) a surge when one starts: when no
// check in the last Window found the account surging.
func (d *Detector) Observe(accountID string) {
	now := d.now()
	d.mu.Lock()
	st, ok := d.checked[accountID]
	st.since++
	due := !ok || now.Sub(st.at) >= checkEvery || (st.since >= Floor && st.since >= st.recent/10)
	if !due || st.inFlight {
		d.checked[accountID] = st
		d.mu.Unlock()
		return
	}
	d.checked[accountID] = checkState{at: now, recent: st.recent, inFlight: true}
	if len(d.checked) > 4096 { // bounded by the accounts active in a minute
		for id, st := range d.checked {
			if now.Sub(st.at) >= checkEvery && !st.inFlight {
				delete(d.checked, id)
			}
		}
		for id, t := range d.surging {
			if now.Sub(t) >= Window {
				delete(d.surging, id)
			}
		}
	}
	d.mu.Unlock()
	d.running.Add(1)
	go func() {
		defer d.running.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, surging, err := d.Check(ctx, accountID)
		d.mu.Lock()
		if st, ok := d.checked[accountID]; ok {
			st.inFlight, st.recent = false, s.Recent
			d.checked[accountID] = st
		}
		d.mu.Unlock()
		if err != nil {
			d.log.Warn("init surge check failed", "account_id", accountID, "err", err)
			return
		}
		if !surging {
			return
		}
		d.mu.Lock()
		last, seen := d.surging[accountID]
		d.surging[accountID] = now
		d.mu.Unlock()
		if seen && now.Sub(last) < Window {
			return // the same surge, already reported
		}
		if d.alerts != nil {
			d.alerts.Inc()
		}
		d.log.Warn("init surge: an account is getting far more new conversations than usual",
			"account_id", accountID, "last_10m", s.Recent, "usual_per_10m", s.Usual,
			"rule", "at least 30 in 10 minutes and 10 times the average of the 24 hours before")
	}()
}

// Wait waits for the background checks in progress.
func (d *Detector) Wait() { d.running.Wait() }
