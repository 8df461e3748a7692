package mail_test

import (
	"strings"
	"testing"
	"time"

	"parley/internal/mail"
	"parley/internal/mail/mailtest"
)

// TestSendSTARTTLSAndImplicit sends through a real SMTP server on
// loopback, over STARTTLS and over implicit TLS, logging in with PLAIN,
// and reads what the server received.
func TestSendSTARTTLSAndImplicit(t *testing.T) {
	t.Parallel()
	for _, implicit := range []bool{false, true} {
		srv := mailtest.Start(t, implicit)
		s, err := mail.Parse(srv.URL(mailtest.Password), "Parley <desk@example.com>")
		if err != nil {
			t.Fatal(err)
		}
		s.WithTLSConfig(srv.ClientTLS)
		err = s.Send(t.Context(), mail.Message{To: "ana@example.org", ToName: "Ana Popescu", Subject: "Răspuns: ваш вопрос", Text: "Line one\nŞi linia doi — с юникодом.\n"})
		if err != nil {
			t.Fatalf("implicit=%v: %v", implicit, err)
		}
		got := srv.Wait(t, 1, 10*time.Second)[0]
		if got.From != "desk@example.com" || len(got.To) != 1 || got.To[0] != "ana@example.org" {
			t.Errorf("envelope = %q → %q", got.From, got.To)
		}
		if got.Subject != "Răspuns: ваш вопрос" {
			t.Errorf("subject = %q", got.Subject)
		}
		if !strings.Contains(got.Body, "Şi linia doi — с юникодом.") {
			t.Errorf("body = %q", got.Body)
		}
	}
}

// TestWrongPasswordNotLogged: a refused login fails the send, and the
// error names the server without the password.
func TestWrongPasswordNotLogged(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, false)
	s, err := mail.Parse(srv.URL("wrong-pass-XYZ"), "desk@example.com")
	if err != nil {
		t.Fatal(err)
	}
	s.WithTLSConfig(srv.ClientTLS)
	err = s.Send(t.Context(), mail.Message{To: "ana@example.org", Subject: "x", Text: "x"})
	if err == nil {
		t.Fatal("send with a wrong password succeeded")
	}
	if strings.Contains(err.Error(), "wrong-pass-XYZ") || strings.Contains(s.String(), "wrong-pass-XYZ") {
		t.Fatalf("the password leaks: %v / %s", err, s)
	}
	if srv.AuthFailures() == 0 || len(srv.Messages()) != 0 {
		t.Fatalf("auth failures %d, messages %d", srv.AuthFailures(), len(srv.Messages()))
	}
}

// TestUntrustedCertificateRefused: STARTTLS is required and checked; a
// server whose certificate is not trusted gets nothing (not even the
// password).
func TestUntrustedCertificateRefused(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, false)
	s, err := mail.Parse(srv.URL(mailtest.Password), "desk@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), mail.Message{To: "ana@example.org", Subject: "x", Text: "x"}); err == nil {
		t.Fatal("sent to a server with an untrusted certificate")
	}
	if len(srv.Messages()) != 0 || srv.AuthFailures() != 0 {
		t.Fatal("the server got a message or a login")
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	if s, err := mail.Parse("", ""); s != nil || err != nil {
		t.Fatalf(`Parse("") = %v, %v`, s, err)
	}
	for _, bad := range []struct{ url, from string }{
		{"http://h", "a@b.c"}, {"smtp://", "a@b.c"}, {"smtp://h:99999", "a@b.c"}, {"smtp://h", ""}, {"smtp://h", "not an address"},
		{"smtp://u:topsecret@h:x", "a@b.c"},
	} {
		_, err := mail.Parse(bad.url, bad.from)
		if err == nil {
			t.Errorf("Parse(%q, %q) passed", bad.url, bad.from)
		} else if strings.Contains(err.Error(), "topsecret") {
			t.Errorf("Parse error quotes the password: %v", err)
		}
	}
	s, err := mail.Parse("smtp://u:topsecret@mail.example.com", "a@b.c")
	if err != nil || s.String() != "smtp://u:xxxxx@mail.example.com:587" {
		t.Fatalf("Parse = %v, %v", s, err)
	}
	s, _ = mail.Parse("smtps://mail.example.com", "a@b.c")
	if s.String() != "smtps://mail.example.com:465" {
		t.Fatalf("smtps String = %s", s)
	}
}

func TestValidAddress(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"ana@example.com": true, "a.b+c@mail.example.ro": true, "анна@пример.рф": true,
		"": false, "ana": false, "ana@": false, "ana@localhost": false, "Ana <ana@example.com>": false,
		"ana@example.com\r\nBcc: x@y.z": false, "a b@example.com": false, "ana@example.": false,
		strings.Repeat("a", 250) + "@x.co": false,
	} {
		if got := mail.ValidAddress(s); got != want {
			t.Errorf("ValidAddress(%q) = %v, want %v", s, got, want)
		}
	}
}
