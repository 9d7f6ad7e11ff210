package api

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/netguard"
)

// resolver looks host names up; *net.Resolver is one.
type resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// lookupTimeout bounds the look-up of a start URL's host.
const lookupTimeout = 2 * time.Second

// refuseInternalNames answers 400 when a start URL's host name resolves to
// an address the fetcher would refuse, so that the caller hears it at once
// rather than from a failed crawl. A name that does not resolve now is let
// through: the crawl reports it, and the fetcher checks every address it
// dials whatever this look-up said.
func (s *server) refuseInternalNames(ctx context.Context, o crawl.Options) error {
	if s.Server.AllowPrivateNetworks {
		return nil
	}
	var details []crawl.FieldError
	looked := map[string]bool{} // hosts looked up: a batch names a few hosts many times
	for i, raw := range o.StartURLs {
		field := "startUrl"
		if o.Shape == crawl.ShapeLegacy {
			field = fmt.Sprintf("startUrls[%d]", i)
		}
		if u, err := url.Parse(raw); err == nil {
			if looked[u.Hostname()] {
				continue
			}
			looked[u.Hostname()] = true
		}
		if msg := s.internalName(ctx, raw); msg != "" {
			details = append(details, crawl.FieldError{Field: field, Message: msg + ", which this server does not crawl"})
		}
	}
	if o.Webhook != nil {
		if msg := s.internalName(ctx, o.Webhook.URL); msg != "" {
			details = append(details, crawl.FieldError{Field: "webhook.url", Message: msg + ", which this server does not call"})
		}
	}
	if len(details) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid request", Details: details}
	}
	return nil
}

// internalName says which forbidden address the host of rawURL resolves
// to ("" when none, or when it is an address or does not resolve).
func (s *server) internalName(ctx context.Context, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "" // the request's parser accepted it; nothing to look up
	}
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err == nil {
		return "" // an address, checked by the parser
	}
	lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := s.Resolver.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if !netguard.Allowed(a) {
			return fmt.Sprintf("%s resolves to %s, a private, loopback or reserved address", host, a)
		}
	}
	return ""
}

var _ resolver = net.DefaultResolver
