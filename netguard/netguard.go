// Package netguard keeps the crawler away from networks it must not reach.
//
// The check runs when a connection is dialled, on the address actually
// dialled, so it covers redirects, DNS names that resolve to private
// addresses and DNS rebinding alike.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is wrapped by every refusal.
var ErrForbiddenAddress = errors.New("address not allowed")

var forbidden = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this" network
	netip.MustParsePrefix("10.0.0.0/8"),     // private
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("127.0.0.0/8"),    // loopback
	netip.MustParsePrefix("169.254.0.0/16"), // link-local, cloud metadata
	netip.MustParsePrefix("172.16.0.0/12"),  // private
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("192.168.0.0/16"), // private
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("224.0.0.0/4"),    // multicast
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("::/128"),         // unspecified
	netip.MustParsePrefix("::1/128"),        // loopback
	netip.MustParsePrefix("fc00::/7"),       // unique local (incl. fd00:ec2::254 metadata)
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("ff00::/8"),       // multicast
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
}

// Prefixes of IPv6 addresses that carry an IPv4 address, which is checked
// too: through NAT64 or 6to4 they reach that IPv4 address.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// Allowed reports whether the crawler may connect to ip.
func Allowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() {
		return false
	}
	for _, p := range forbidden {
		if p.Contains(ip) {
			return false
		}
	}
	if b := ip.As16(); nat64.Contains(ip) {
		return Allowed(netip.AddrFrom4([4]byte(b[12:16])))
	} else if sixToFour.Contains(ip) {
		return Allowed(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// Check returns an error wrapping ErrForbiddenAddress when address
// ("ip:port", as given to a dialer's Control function) must not be reached.
func Check(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s is not an IP address", ErrForbiddenAddress, host)
	}
	if !Allowed(ip) {
		return fmt.Errorf("%w: %s is a private, loopback, link-local or reserved address", ErrForbiddenAddress, ip)
	}
	return nil
}

// Dialer returns a dialer that refuses forbidden addresses unless
// allowPrivate is set.
func Dialer(allowPrivate bool, timeout time.Duration) *net.Dialer {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			return Check(address)
		}
	}
	return d
}

// Policy is which addresses a dialler may reach: none that Allowed
// refuses, unless AllowPrivate is set or the address is in one of the
// Allow networks (an operator's intranet, a test's own host).
type Policy struct {
	AllowPrivate bool
	Allow        []netip.Prefix
}

// Check returns an error wrapping ErrForbiddenAddress when ip must not be
// reached under p.
func (p Policy) Check(ip netip.Addr) error {
	if p.AllowPrivate || Allowed(ip) {
		return nil
	}
	ip = ip.Unmap()
	for _, n := range p.Allow {
		if n.Contains(ip) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is a private, loopback, link-local or reserved address", ErrForbiddenAddress, ip)
}

// CheckAddress is Check on address ("ip:port", as a dialer's Control
// function is given it).
func (p Policy) CheckAddress(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s is not an IP address", ErrForbiddenAddress, host)
	}
	return p.Check(ip)
}

// DialerFor returns a dialer that refuses what p forbids.
func DialerFor(p Policy, timeout time.Duration) *net.Dialer {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !p.AllowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			return p.CheckAddress(address)
		}
	}
	return d
}

// ParseNetworks reads a comma-separated list of networks ("10.1.0.0/16,
// 192.168.5.7"): a bare address is a network of that one address.
func ParseNetworks(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither a network (10.0.0.0/8) nor an address", f)
		}
		out = append(out, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
	}
	return out, nil
}
