package outbound

import (
	"fmt"
	"net/netip"
)

// Class says what kind of address an IP is, as far as the guard cares.
// Every class but Public is refused unless private addresses are allowed.
type Class int

const (
	Public      Class = iota
	Loopback          // 127.0.0.0/8, ::1
	Private           // RFC 1918, fc00::/7 (unique local), fec0::/10 (old site-local), 64:ff9b:1::/48
	LinkLocal         // 169.254.0.0/16 (cloud metadata lives here), fe80::/10
	Shared            // 100.64.0.0/10, the carrier-grade NAT space: private to a provider
	Multicast         // 224.0.0.0/4, ff00::/8
	Unspecified       // 0.0.0.0/8 ("this network": Linux dials 0.0.0.0 as loopback), ::
	Broadcast         // 255.255.255.255
	Reserved          // documentation, benchmarking, protocol assignments, 240.0.0.0/4, IPv6 outside 2000::/3
)

// String is the class as the guard's messages name it, with its article.
func (c Class) String() string {
	switch c {
	case Public:
		return "a public address"
	case Loopback:
		return "a loopback address"
	case Private:
		return "a private address"
	case LinkLocal:
		return "a link-local address"
	case Shared:
		return "a shared (carrier-grade NAT) address"
	case Multicast:
		return "a multicast address"
	case Unspecified:
		return "an unspecified address"
	case Broadcast:
		return "the broadcast address"
	case Reserved:
		return "a reserved address"
	}
	return fmt.Sprintf("class %d", int(c))
}

// Key is the class as a short word, for message catalogues and logs.
func (c Class) Key() string {
	return [...]string{"public", "loopback", "private", "linklocal", "shared", "multicast", "unspecified", "broadcast", "reserved"}[c]
}

// Classes lists every refused class, for message catalogues that must name
// each.
var Classes = []Class{Loopback, Private, LinkLocal, Shared, Multicast, Unspecified, Broadcast, Reserved}

type classedPrefix struct {
	prefix netip.Prefix
	class  Class
}

// v4Ranges are the IPv4 ranges that are not the public internet: IANA's
// special-purpose registry, less the few entries that are globally
// reachable anycast services nobody points an API client at anyway.
var v4Ranges = []classedPrefix{
	{pfx("0.0.0.0/8"), Unspecified},
	{pfx("10.0.0.0/8"), Private},
	{pfx("100.64.0.0/10"), Shared},
	{pfx("127.0.0.0/8"), Loopback},
	{pfx("169.254.0.0/16"), LinkLocal},
	{pfx("172.16.0.0/12"), Private},
	{pfx("192.0.0.0/24"), Reserved},   // IETF protocol assignments
	{pfx("192.0.2.0/24"), Reserved},   // TEST-NET-1
	{pfx("192.88.99.0/24"), Reserved}, // the retired 6to4 relay anycast
	{pfx("192.168.0.0/16"), Private},
	{pfx("198.18.0.0/15"), Reserved},   // benchmarking, often used inside data centres
	{pfx("198.51.100.0/24"), Reserved}, // TEST-NET-2
	{pfx("203.0.113.0/24"), Reserved},  // TEST-NET-3
	{pfx("224.0.0.0/4"), Multicast},
	{pfx("255.255.255.255/32"), Broadcast}, // before 240/4, which holds it
	{pfx("240.0.0.0/4"), Reserved},
}

// v6Ranges are checked after the forms that embed an IPv4 address. Inside
// 2000::/3 (the only global unicast space) a few blocks are not public;
// everything outside it that is not named here is Reserved.
var v6Ranges = []classedPrefix{
	{pfx("::/128"), Unspecified},
	{pfx("::1/128"), Loopback},
	{pfx("64:ff9b:1::/48"), Private}, // local-use NAT64 (RFC 8215): translates into the site's own space
	{pfx("fc00::/7"), Private},
	{pfx("fe80::/10"), LinkLocal},
	{pfx("fec0::/10"), Private},
	{pfx("ff00::/8"), Multicast},
	{pfx("2001::/32"), Reserved},     // Teredo: tunnels to an obfuscated IPv4 address
	{pfx("2001:2::/48"), Reserved},   // benchmarking
	{pfx("2001:db8::/32"), Reserved}, // documentation
	{pfx("3fff::/20"), Reserved},     // documentation (RFC 9637)
}

var globalUnicast = netip.MustParsePrefix("2000::/3")

// Forms of IPv6 that carry an IPv4 address a dial may end up at.
var (
	v4Mapped     = netip.MustParsePrefix("::ffff:0:0/96") // the kernel dials the IPv4 address itself
	v4Compatible = netip.MustParsePrefix("::/96")         // deprecated; some stacks still map it
	nat64        = netip.MustParsePrefix("64:ff9b::/96")  // the network's NAT64 gateway dials the IPv4 address
	sixToFour    = netip.MustParsePrefix("2002::/16")     // a 6to4 relay dials the IPv4 address in bits 16-47
)

// Classify says which class addr is in. An IPv6 form that embeds an IPv4
// address (mapped, compatible, NAT64, 6to4) takes the class of the IPv4
// address, because that is where the connection ends up.
func Classify(addr netip.Addr) Class {
	addr = addr.WithZone("")
	if addr.Is4() {
		return lookup(v4Ranges, addr)
	}
	if !addr.Is6() {
		return Reserved // the zero Addr: nothing to dial
	}
	b := addr.As16()
	embedded := netip.AddrFrom4([4]byte(b[12:16]))
	switch {
	case v4Mapped.Contains(addr), nat64.Contains(addr):
		return lookup(v4Ranges, embedded)
	case addr == netip.IPv6Unspecified(), addr == netip.IPv6Loopback():
		return lookup(v6Ranges, addr)
	case v4Compatible.Contains(addr):
		if c := lookup(v4Ranges, embedded); c != Public {
			return c
		}
		return Reserved // deprecated since 2006: no real server is reached this way
	case sixToFour.Contains(addr):
		return lookup(v4Ranges, netip.AddrFrom4([4]byte(b[2:6])))
	}
	if c := lookup(v6Ranges, addr); c != Public {
		return c
	}
	if !globalUnicast.Contains(addr) {
		return Reserved
	}
	return Public
}

func lookup(ranges []classedPrefix, addr netip.Addr) Class {
	for _, r := range ranges {
		if r.prefix.Contains(addr) {
			return r.class
		}
	}
	return Public
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
