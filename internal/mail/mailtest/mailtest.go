// Package mailtest starts a real SMTP server on loopback for tests
// (github.com/emersion/go-smtp): STARTTLS or implicit TLS with a
// certificate made for the test, PLAIN authentication against one user,
// and every accepted message kept for the test to read. Only tests import
// it.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// User and Password are the only credentials the server accepts.
const (
	User     = "parley"
	Password = "s3cret-smtp-pass"
)

// Message is one message the server accepted.
type Message struct {
	From    string
	To      []string
	Raw     string
	Subject string
	Body    string // the decoded text
}

// Server is a running test server.
type Server struct {
	Addr      string      // host:port on 127.0.0.1
	ClientTLS *tls.Config // trusts the server's certificate
	Implicit  bool        // smtps (implicit TLS) rather than STARTTLS

	mu       sync.Mutex
	messages []Message
	arrived  chan struct{}
	authFail int
}

// Start starts a server for the test and stops it when the test ends;
// implicit selects smtps.
func Start(t testing.TB, implicit bool) *Server {
	t.Helper()
	cert, pool := certificate(t)
	s := &Server{Implicit: implicit, arrived: make(chan struct{}, 100),
		ClientTLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	var l net.Listener
	var err error
	if implicit {
		l, err = tls.Listen("tcp", "127.0.0.1:0", srv.TLSConfig)
	} else {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return s
}

// URL is PARLEY_SMTP_URL for this server with the given password.
func (s *Server) URL(password string) string {
	scheme := "smtp"
	if s.Implicit {
		scheme = "smtps"
	}
	return scheme + "://" + User + ":" + password + "@" + s.Addr
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// AuthFailures counts refused logins.
func (s *Server) AuthFailures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authFail
}

// Wait returns once n messages have arrived, or fails the test after d.
func (s *Server) Wait(t testing.TB, n int, d time.Duration) []Message {
	t.Helper()
	deadline := time.After(d)
	for {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("mailtest: %d messages after %v, want %d", len(s.Messages()), d, n)
		}
	}
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

func (se *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (se *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != User || pass != Password {
			se.s.mu.Lock()
			se.s.authFail++
			se.s.mu.Unlock()
			return errors.New("bad credentials")
		}
		se.authed = true
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if !se.authed {
		return smtp.ErrAuthRequired
	}
	se.from = from
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	se.to = append(se.to, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := Message{From: se.from, To: se.to, Raw: string(raw)}
	if pm, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil {
		m.Subject, _ = new(mime.WordDecoder).DecodeHeader(pm.Header.Get("Subject"))
		m.Body = decodeBody(pm)
	}
	se.s.mu.Lock()
	se.s.messages = append(se.s.messages, m)
	se.s.mu.Unlock()
	select {
	case se.s.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (se *session) Reset()        { se.from, se.to = "", nil }
func (se *session) Logout() error { return nil }

// certificate makes a self-signed certificate for 127.0.0.1 and a pool
// that trusts it.
func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// decodeBody is a single-part message's text, its transfer encoding
// undone.
func decodeBody(pm *mail.Message) string {
	var r io.Reader = pm.Body
	switch strings.ToLower(pm.Header.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, _ := io.ReadAll(r)
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}
