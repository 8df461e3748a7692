package clientip

import "net/netip"

// Network names the network a client address belongs to, for counting
// abuse (failed sign-ins, sign-ups): an IPv4 address itself, an IPv6
// address's /64. One subscriber usually has a whole /64, so counting its
// addresses one by one would give an attacker 2^64 fresh starts. What does
// not parse is returned as it is.
func Network(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}
