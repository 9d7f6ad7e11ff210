package api

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"sync"
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
	type check struct{ field, url, refusal string }
	var checks []check
	if o.Webhook != nil {
		checks = append(checks, check{"webhook.url", o.Webhook.URL, ", which this server does not call"})
	}
	looked := map[string]bool{} // a batch names a few hosts many times
	for i, raw := range o.StartURLs {
		u, err := url.Parse(raw)
		if err != nil || looked[u.Hostname()] {
			continue
		}
		if len(looked) == maxLookups {
			break // the fetcher checks the rest when it dials them
		}
		looked[u.Hostname()] = true
		field := "startUrl"
		if o.Shape == crawl.ShapeLegacy {
			field = fmt.Sprintf("startUrls[%d]", i)
		}
		checks = append(checks, check{field, raw, ", which this server does not crawl"})
	}
	// At once, within one lookupTimeout.
	msgs := make([]string, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs[i] = s.internalName(ctx, c.url)
		}()
	}
	wg.Wait()
	var details []crawl.FieldError
	for i, c := range checks {
		if msgs[i] != "" {
			details = append(details, crawl.FieldError{Field: c.field, Message: msgs[i] + c.refusal})
		}
	}
	if len(details) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid request", Details: details}
	}
	return nil
}

// maxLookups bounds the start URL hosts looked up for one request.
const maxLookups = 32

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
