package crawler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"

	"parley/internal/outbound"
)

// StartError is why a crawl gave nothing, as a stable Code and its values
// (Args: the URL, the status, the limit…), so that a reader can say it in
// its own language; Error is the same in English, the plain words the API
// returns. Each code's values are listed where it is defined.
type StartError struct {
	Code string
	Args []string
	text string
	err  error // the cause when it must stay visible to errors.Is/As (a refusal, a deadline)
}

func (e *StartError) Error() string { return e.text }
func (e *StartError) Unwrap() error { return e.err }

// The codes of StartError, each with its Args in order. They are stored
// with a failed sync, so a code keeps its meaning once released: a new
// reason gets a new code.
const (
	CodeNotURL         = "not_url"         // the start as written: not an http(s) URL
	CodeRefused        = "refused"         // the address ("host (addr)" or "addr"), its outbound.Class key
	CodeBadURL         = "bad_url"         // the URL, the guard's problem with it (English)
	CodeStatus         = "status"          // the URL, the HTTP status
	CodeNotText        = "not_text"        // the URL, its content type
	CodeTooLarge       = "too_large"       // the URL, the limit in MiB
	CodeOffSite        = "off_site"        // the URL, where it redirects
	CodeRobotsRedirect = "robots_redirect" // the URL, where it redirects
	CodeTimeout        = "timeout"         // the URL, the time it had (a Go duration, "30s")
	CodeNoDNS          = "no_dns"          // the URL, its host
	CodeConnRefused    = "conn_refused"    // the URL
	CodeUnreachable    = "unreachable"     // the URL, the network's error (English)
	CodeRobotsStatus   = "robots_status"   // robots.txt's URL, the HTTP status
	CodeRobotsSite     = "robots_site"     // none: robots.txt disallows the whole site
	CodeRobotsStart    = "robots_start"    // the start URL robots.txt disallows
	CodeTimeLimit      = "time_limit"      // the crawl's time limit (a Go duration), the URL
)

func startErr(code, text string, args ...string) *StartError {
	return &StartError{Code: code, Args: args, text: text}
}

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
		target := r.Addr.String()
		if r.Host != "" {
			target = r.Host + " (" + target + ")"
		}
		e := startErr(CodeRefused, "refused: "+r.Error(), target, r.Class.Key())
		e.err = &r
		return e
	case errors.As(err, &urlErr):
		e := startErr(CodeBadURL, fmt.Sprintf("refused: %s: %s", where, urlErr), where, urlErr.Problem)
		e.err = urlErr
		return e
	case errors.As(err, &status):
		return startErr(CodeStatus, fmt.Sprintf("the site answered %d for %s", status.code, where), where, strconv.Itoa(status.code))
	case errors.As(err, &notText):
		return startErr(CodeNotText, fmt.Sprintf("%s is not a web page, a PDF or a DOCX file (it is %s)", where, notText.contentType), where, notText.contentType)
	case errors.Is(err, errTooLarge):
		mib := strconv.FormatInt(cfg.MaxBytes>>20, 10)
		return startErr(CodeTooLarge, fmt.Sprintf("%s is larger than %s MiB, the limit for one page", where, mib), where, mib)
	case errors.As(err, &offSite):
		return startErr(CodeOffSite, fmt.Sprintf("%s redirects to another site (%s), which is not followed: add that address instead", where, offSite.to), where, offSite.to)
	case errors.As(err, &robots):
		return startErr(CodeRobotsRedirect, fmt.Sprintf("%s redirects to %s, which robots.txt disallows for %s", where, robots.to, robotsAgent), where, robots.to)
	case errors.Is(err, context.DeadlineExceeded):
		e := startErr(CodeTimeout, fmt.Sprintf("%s did not answer within %v: %v", where, cfg.RequestTimeout, err), where, cfg.RequestTimeout.String())
		e.err = err // Crawl tells its own time limit from a request's by it
		return e
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return startErr(CodeNoDNS, fmt.Sprintf("%s does not exist: no DNS record for %s", where, u.Hostname()), where, u.Hostname())
	case errors.Is(err, syscall.ECONNREFUSED):
		return startErr(CodeConnRefused, fmt.Sprintf("nothing answers at %s (connection refused)", where), where)
	case errors.Is(err, context.Canceled):
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return startErr(CodeUnreachable, fmt.Sprintf("could not reach %s: %v", where, err), where, err.Error())
}

func isRedirectRefusal(err error) bool {
	var offSite *offSiteError
	var robots *robotsError
	return errors.As(err, &offSite) || errors.As(err, &robots)
}
