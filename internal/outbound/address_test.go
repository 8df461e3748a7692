package outbound

import (
	"net/netip"
	"testing"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		want Class
	}{
		// Public.
		{"93.184.216.34", Public},
		{"8.8.8.8", Public},
		{"100.63.255.255", Public}, // just below CGNAT
		{"100.128.0.0", Public},    // just above
		{"172.15.255.255", Public},
		{"172.32.0.0", Public},
		{"2606:4700:4700::1111", Public},
		{"64:ff9b::808:808", Public},         // NAT64 of 8.8.8.8: how IPv6-only hosts reach it
		{"2002:808:808::1", Public},          // 6to4 of 8.8.8.8
		{"::ffff:93.184.216.34", Public},     // mapped public
		{"2a00:1450:4001:81b::200e", Public}, // inside 2000::/3

		// Loopback, every way it can be written.
		{"127.0.0.1", Loopback},
		{"127.255.255.254", Loopback},
		{"::1", Loopback},
		{"::ffff:127.0.0.1", Loopback},
		{"::127.0.0.1", Loopback},     // IPv4-compatible
		{"64:ff9b::7f00:1", Loopback}, // NAT64 well-known prefix
		{"2002:7f00:1::1", Loopback},  // 6to4
		{"::ffff:7f00:1", Loopback},   // mapped, hex
		{"0:0:0:0:0:ffff:7f00:1", Loopback},

		// Private.
		{"10.0.0.1", Private},
		{"172.16.0.1", Private},
		{"172.31.255.255", Private},
		{"192.168.1.1", Private},
		{"::ffff:10.1.2.3", Private},
		{"64:ff9b::c0a8:101", Private}, // NAT64 of 192.168.1.1
		{"64:ff9b:1::a00:1", Private},  // local-use NAT64
		{"fc00::1", Private},
		{"fd12:3456:789a::1", Private},
		{"fec0::1", Private},

		// Link-local: the cloud metadata service.
		{"169.254.169.254", LinkLocal},
		{"::ffff:169.254.169.254", LinkLocal},
		{"fe80::1", LinkLocal},
		{"fe80::1%eth0", LinkLocal},

		{"100.64.0.1", Shared},
		{"100.127.255.255", Shared},

		{"224.0.0.1", Multicast},
		{"239.255.255.250", Multicast},
		{"ff02::1", Multicast},
		{"::ffff:224.0.0.251", Multicast},

		{"0.0.0.0", Unspecified},
		{"0.1.2.3", Unspecified},
		{"::", Unspecified},
		{"::ffff:0.0.0.0", Unspecified},

		{"255.255.255.255", Broadcast},

		{"192.0.2.1", Reserved},
		{"198.51.100.7", Reserved},
		{"203.0.113.9", Reserved},
		{"198.18.0.1", Reserved},
		{"192.0.0.8", Reserved},
		{"240.0.0.1", Reserved},
		{"2001:db8::1", Reserved},
		{"2001::1", Reserved},   // Teredo
		{"::8.8.8.8", Reserved}, // IPv4-compatible, deprecated
		{"100::1", Reserved},    // discard-only, outside 2000::/3
		{"4000::1", Reserved},   // unallocated
		{"3fff::1", Reserved},   // documentation
		{"2001:2::1", Reserved}, // benchmarking
	}
	for _, tt := range tests {
		if got := Classify(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Classify(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
	if got := Classify(netip.Addr{}); got == Public {
		t.Error("the zero address is public")
	}
}

func TestClassNames(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range Classes {
		if c == Public || seen[c.Key()] || c.String() == "" {
			t.Errorf("class %d: key %q, name %q", c, c.Key(), c)
		}
		seen[c.Key()] = true
	}
}
