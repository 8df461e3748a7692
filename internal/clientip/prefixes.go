package clientip

import (
	"fmt"
	"net/netip"
	"strings"
)

// ParsePrefixes parses a comma-separated list of CIDR prefixes or single
// addresses, as written in configuration: "10.0.0.0/8, 192.0.2.7, ::1".
// A single address becomes a /32 or /128. Empty entries are skipped, so
// "" yields no prefixes and a trailing comma is harmless. Host bits are
// masked off, and IPv4-mapped IPv6 prefixes are turned into IPv4 ones
// because ClientIP unmaps addresses before checking them.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		p, err := parsePrefix(entry)
		if err != nil {
			return nil, fmt.Errorf("clientip: trusted proxy %q: %w", entry, err)
		}
		out = append(out, normalize(p))
	}
	return out, nil
}

func parsePrefix(entry string) (netip.Prefix, error) {
	if strings.Contains(entry, "/") {
		return netip.ParsePrefix(entry)
	}
	a, err := netip.ParseAddr(entry)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a.Zone() != "" {
		// Prefixes cannot carry zones; silently dropping it would trust
		// the address on every interface.
		return netip.Prefix{}, fmt.Errorf("zoned address not allowed")
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// normalize masks host bits and unmaps IPv4-mapped prefixes so that
// Contains matches the unmapped addresses ClientIP works with.
func normalize(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked()
}
