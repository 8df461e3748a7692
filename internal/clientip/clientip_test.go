package clientip

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestClientIP(t *testing.T) {
	proxies := mustPrefixes(t, "10.0.0.0/8, 2001:db8:ff::/48, 192.0.2.1")
	tests := []struct {
		name    string
		trusted []netip.Prefix
		remote  string
		xff     []string
		want    string // "" means the zero Addr
	}{
		{"no header", proxies, "203.0.113.5:4000", nil, "203.0.113.5"},
		{"no trusted proxies ignores header", nil, "10.0.0.1:4000", []string{"203.0.113.5"}, "10.0.0.1"},
		{"spoofed header from untrusted peer", proxies, "203.0.113.5:4000", []string{"198.51.100.1"}, "203.0.113.5"},
		{"one proxy", proxies, "10.0.0.1:4000", []string{"203.0.113.5"}, "203.0.113.5"},
		{"trusted peer without header", proxies, "10.0.0.1:4000", nil, "10.0.0.1"},
		{"chain of proxies", proxies, "10.0.0.1:4000", []string{"203.0.113.5, 10.2.3.4, 192.0.2.1"}, "203.0.113.5"},
		{"forged left-most entry ignored", proxies, "10.0.0.1:4000", []string{"1.1.1.1, 203.0.113.5, 10.2.3.4"}, "203.0.113.5"},
		{"all entries trusted", proxies, "10.0.0.1:4000", []string{"10.9.9.9,10.8.8.8"}, "10.9.9.9"},
		{"garbage right-most", proxies, "10.0.0.1:4000", []string{"203.0.113.5, bogus"}, "10.0.0.1"},
		{"garbage behind a trusted hop", proxies, "10.0.0.1:4000", []string{"203.0.113.5, unknown, 10.2.3.4"}, "10.2.3.4"},
		{"empty entry stops", proxies, "10.0.0.1:4000", []string{"203.0.113.5,,10.2.3.4"}, "10.2.3.4"},
		{"empty header line stops", proxies, "10.0.0.1:4000", []string{"203.0.113.5", ""}, "10.0.0.1"},
		{"entry with port", proxies, "10.0.0.1:4000", []string{"203.0.113.5:5555"}, "203.0.113.5"},
		{"ipv6 peer and client", proxies, "[2001:db8:ff::2]:443", []string{"2001:db8:1::7"}, "2001:db8:1::7"},
		{"bracketed ipv6 entry with port", proxies, "10.0.0.1:4000", []string{"[2001:db8:1::7]:80"}, "2001:db8:1::7"},
		{"ipv6 untrusted peer", proxies, "[2001:db8:1::7]:443", []string{"10.0.0.3"}, "2001:db8:1::7"},
		{"ipv4-mapped peer is unmapped and trusted", proxies, "[::ffff:10.0.0.1]:80", []string{"::ffff:203.0.113.5"}, "203.0.113.5"},
		{"zone dropped", nil, "[fe80::1%eth0]:80", nil, "fe80::1"},
		{"multiple header lines", proxies, "10.0.0.1:4000", []string{"1.1.1.1, 203.0.113.5", "10.2.3.4", "10.3.3.3, 192.0.2.1"}, "203.0.113.5"},
		{"multiple lines all trusted", proxies, "10.0.0.1:4000", []string{"10.1.1.1", "10.2.2.2"}, "10.1.1.1"},
		{"unparsable remote addr", proxies, "@", []string{"203.0.113.5"}, ""},
		{"empty remote addr", nil, "", nil, ""},
		{"remote addr without port", nil, "203.0.113.5", nil, "203.0.113.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
			for _, v := range tt.xff {
				req.Header.Add("X-Forwarded-For", v)
			}
			var want netip.Addr
			if tt.want != "" {
				want = netip.MustParseAddr(tt.want)
			}
			if got := New(tt.trusted).ClientIP(req); got != want {
				t.Fatalf("ClientIP = %v, want %v", got, want)
			}
		})
	}
}

func TestParsePrefixes(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", nil, false},
		{"  ", nil, false},
		{"10.0.0.0/8", []string{"10.0.0.0/8"}, false},
		{" 10.0.0.0/8 ,192.0.2.7,\t::1 , ", []string{"10.0.0.0/8", "192.0.2.7/32", "::1/128"}, false},
		{"10.1.2.3/8", []string{"10.0.0.0/8"}, false},
		{"2001:db8::/32", []string{"2001:db8::/32"}, false},
		{"10.0.0.0/8, nope", nil, true},
		{"10.0.0.0/33", nil, true},
		{"fe80::1%eth0", nil, true},
	}
	for _, tt := range tests {
		got, err := ParsePrefixes(tt.in)
		if (err != nil) != tt.wantErr {
			t.Fatalf("%q: err = %v, wantErr %v", tt.in, err, tt.wantErr)
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%q: got %v, want %v", tt.in, got, tt.want)
		}
		for i := range got {
			if got[i].String() != tt.want[i] {
				t.Fatalf("%q: got %v, want %v", tt.in, got, tt.want)
			}
		}
	}
}

func TestParsePrefixesNamesBadEntry(t *testing.T) {
	_, err := ParsePrefixes("10.0.0.0/8, 300.1.2.3")
	if err == nil || !strings.Contains(err.Error(), `"300.1.2.3"`) {
		t.Fatalf("error %v does not name the bad entry", err)
	}
}

func TestMappedTrustedPrefix(t *testing.T) {
	r := New([]netip.Prefix{netip.MustParsePrefix("::ffff:10.0.0.0/104")})
	req := &http.Request{RemoteAddr: "10.0.0.1:80", Header: http.Header{"X-Forwarded-For": {"203.0.113.5"}}}
	if got := r.ClientIP(req); got != netip.MustParseAddr("203.0.113.5") {
		t.Fatalf("mapped prefix not applied to IPv4 peer: got %v", got)
	}
}

func mustPrefixes(t *testing.T, s string) []netip.Prefix {
	t.Helper()
	p, err := ParsePrefixes(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTrusted(t *testing.T) {
	r := New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::5/128")})
	for addr, want := range map[string]bool{
		"10.1.2.3": true, "::ffff:10.1.2.3": true, "2001:db8::5": true,
		"2001:db8::6": false, "192.0.2.1": false,
	} {
		if got := r.Trusted(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Trusted(%s) = %v, want %v", addr, got, want)
		}
	}
}
