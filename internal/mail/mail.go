// Package mail sends Parley's e-mail over SMTP (issue 19): the operators'
// alerts about conversations waiting for a human and the replies to
// visitors who left an address. It wraps github.com/wneessen/go-mail, a
// maintained, dependency-light SMTP client (STARTTLS, implicit TLS, SMTP
// AUTH with mechanism discovery, contexts). Callers send from the job
// queue (internal/jobs), never from a request.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"parley/internal/redact"
)

// Message is one plain-text e-mail to one recipient.
type Message struct {
	To      string // an address
	ToName  string // optional display name
	Subject string
	Text    string
	ReplyTo string // optional
}

// Sender sends a message. *SMTP is the real one; nil means e-mail is off.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTP sends through one SMTP server, configured by PARLEY_SMTP_URL:
// smtp://user:pass@host:587 speaks STARTTLS (required: a server without
// it is an error, so the password never travels in the clear) and
// smtps://user:pass@host:465 implicit TLS. Without user info it sends
// without AUTH (a relay that trusts the address).
type SMTP struct {
	host        string
	port        int
	user, pass  string
	implicitTLS bool
	from        string
	tls         *tls.Config
	timeout     time.Duration
}

// Parse reads an SMTP URL and the From address. It returns nil, nil when
// rawURL is empty (e-mail is off). Its errors never quote the password.
func Parse(rawURL, from string) (*SMTP, error) {
	if strings.TrimSpace(rawURL) == "" {
		return nil, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("PARLEY_SMTP_URL is not a URL: %w", redact.Error(err))
	}
	s := &SMTP{host: u.Hostname(), timeout: 30 * time.Second}
	switch u.Scheme {
	case "smtp":
		s.port = 587
	case "smtps":
		s.port, s.implicitTLS = 465, true
	default:
		return nil, errors.New("PARLEY_SMTP_URL must start with smtp:// (STARTTLS) or smtps:// (implicit TLS)")
	}
	if s.host == "" {
		return nil, errors.New("PARLEY_SMTP_URL names no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, errors.New("PARLEY_SMTP_URL has a bad port")
		}
		s.port = n
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	if from == "" {
		return nil, errors.New("PARLEY_SMTP_FROM is required with PARLEY_SMTP_URL")
	}
	addr, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("PARLEY_SMTP_FROM is not an e-mail address: %w", err)
	}
	s.from = addr.String()
	return s, nil
}

// String is the server as it may be logged: the password masked.
func (s *SMTP) String() string {
	if s == nil {
		return "off"
	}
	scheme := "smtp"
	if s.implicitTLS {
		scheme = "smtps"
	}
	u := url.URL{Scheme: scheme, Host: s.host + ":" + strconv.Itoa(s.port)}
	if s.user != "" {
		u.User = url.UserPassword(s.user, "xxxxx")
	}
	return u.String()
}

// WithTLSConfig sets the TLS configuration (tests trust their own
// certificate with it); the server name is the URL's host by default.
func (s *SMTP) WithTLSConfig(c *tls.Config) *SMTP {
	s.tls = c
	return s
}

// Send delivers one message, dialling the server for it (mail is rare:
// a few per conversation at most).
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return fmt.Errorf("mail: from: %w", err)
	}
	if err := msg.AddToFormat(m.ToName, m.To); err != nil {
		return fmt.Errorf("mail: to: %w", err)
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return fmt.Errorf("mail: reply-to: %w", err)
		}
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)

	opts := []gomail.Option{gomail.WithPort(s.port), gomail.WithTimeout(s.timeout)}
	tc := s.tls
	if tc == nil {
		tc = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tc = tc.Clone()
	if tc.ServerName == "" {
		tc.ServerName = s.host
	}
	opts = append(opts, gomail.WithTLSConfig(tc))
	if s.implicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.user), gomail.WithPassword(s.pass))
	}
	c, err := gomail.NewClient(s.host, opts...)
	if err != nil {
		return fmt.Errorf("mail: %w", redact.Error(err))
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: send to %s via %s: %w", m.To, s, redact.Error(err))
	}
	return nil
}

// ValidAddress checks an e-mail address a visitor typed: one plain address
// (no display name), at most 254 characters, with a dot in its domain.
func ValidAddress(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>\r\n") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".") && !strings.HasSuffix(s, ".")
}
