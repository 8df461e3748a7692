package crawler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"

	"parley/internal/outbound"
)

// startError words why the start URL (or robots.txt, read before it) gave
// nothing, for an owner who sees it as the sync's error. A refusal by the
// guard stays one for errors.As and outbound.IsRefusal.
func startError(u *url.URL, err error, cfg Config) error {
	where := u.Redacted()
	var (
		status  *statusError
		notText *notTextError
		offSite *offSiteError
		robots  *robotsError
		refusal *outbound.Refusal
		urlErr  *outbound.URLError
		dnsErr  *net.DNSError
	)
	switch {
	case errors.As(err, &refusal):
		r := *refusal
		if _, ipErr := netip.ParseAddr(u.Hostname()); ipErr != nil && r.Host == "" {
			r.Host = u.Hostname() // the dial saw only the address; the owner wrote the name
		}
		return fmt.Errorf("refused: %w", &r)
	case errors.As(err, &urlErr):
		return fmt.Errorf("refused: %s: %w", where, urlErr)
	case errors.As(err, &status):
		return fmt.Errorf("the site answered %d for %s", status.code, where)
	case errors.As(err, &notText):
		return fmt.Errorf("%s is not a web page, a PDF or a DOCX file (it is %s)", where, notText.contentType)
	case errors.Is(err, errTooLarge):
		return fmt.Errorf("%s is larger than %d MiB, the limit for one page", where, cfg.MaxBytes>>20)
	case errors.As(err, &offSite):
		return fmt.Errorf("%s redirects to another site (%s), which is not followed: add that address instead", where, offSite.to)
	case errors.As(err, &robots):
		return fmt.Errorf("%s redirects to %s, which robots.txt disallows for %s", where, robots.to, robotsAgent)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer within %v: %w", where, cfg.RequestTimeout, err)
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Errorf("%s does not exist: no DNS record for %s", where, u.Hostname())
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("nothing answers at %s (connection refused)", where)
	case errors.Is(err, context.Canceled):
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("could not reach %s: %v", where, err)
}

func isRedirectRefusal(err error) bool {
	var offSite *offSiteError
	var robots *robotsError
	return errors.As(err, &offSite) || errors.As(err, &robots)
}
