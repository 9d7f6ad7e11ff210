// Package proxypool holds the proxies an operator gives the crawler
// (CRAWLER_PROXY_POOLS), by kind — Firecrawl's basic, stealth and
// enhanced — and by country, and hands them out in rotation. It does no
// I/O: the fetch engines send requests through what it picks, each still
// checked by the network guard.
package proxypool

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
)

// The kinds of pool, Firecrawl's names.
const (
	Basic    = "basic"
	Stealth  = "stealth"
	Enhanced = "enhanced"
)

// Kinds are the kinds a pool may be of.
var Kinds = []string{Basic, Stealth, Enhanced}

// Pool is a list of proxies handed out in turn. It is safe for
// concurrent use.
type Pool struct {
	Name    string // kind, or kind@COUNTRY
	proxies []*url.URL
	next    atomic.Uint64
}

// Next is the pool's next proxy, in rotation.
func (p *Pool) Next() *url.URL {
	i := p.next.Add(1) - 1
	return p.proxies[i%uint64(len(p.proxies))]
}

// Len is how many proxies the pool has.
func (p *Pool) Len() int { return len(p.proxies) }

// Pools are an operator's pools by name (kind, or kind@COUNTRY).
type Pools struct {
	byName map[string]*Pool
}

// Parse reads CRAWLER_PROXY_POOLS: pools separated by ";", each
// "kind[@COUNTRY]=proxy proxy …" with http(s) proxy URLs (credentials in
// them as user:password@), as
//
//	basic=http://p1:3128 http://p2:3128; stealth@DE=http://user:pw@de.example:8080
//
// An empty spec is no pools.
func Parse(spec string) (*Pools, error) {
	out := &Pools{byName: map[string]*Pool{}}
	for _, entry := range strings.Split(spec, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, list, ok := strings.Cut(entry, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not kind[@COUNTRY]=proxy …", entry)
		}
		kind, country, _ := strings.Cut(strings.TrimSpace(name), "@")
		kind = strings.ToLower(kind)
		if !slices.Contains(Kinds, kind) {
			return nil, fmt.Errorf("%q is not a kind of pool (%s)", kind, strings.Join(Kinds, ", "))
		}
		if country != "" && !isCountry(country) {
			return nil, fmt.Errorf("%q is not a two-letter country code", country)
		}
		key := Name(kind, country)
		p := out.byName[key]
		if p == nil {
			p = &Pool{Name: key}
			out.byName[key] = p
		}
		for _, raw := range strings.Fields(list) {
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Path != "" && u.Path != "/" {
				return nil, fmt.Errorf("pool %s: %q is not an http(s) proxy URL", key, redact(raw))
			}
			p.proxies = append(p.proxies, u)
		}
		if len(p.proxies) == 0 {
			return nil, fmt.Errorf("pool %s has no proxy", key)
		}
	}
	return out, nil
}

// Name is a pool's name: kind, or kind@COUNTRY.
func Name(kind, country string) string {
	if country == "" {
		return kind
	}
	return kind + "@" + strings.ToUpper(country)
}

// Get is the pool of kind for country ("" any): the country's own, or,
// without a country, the kind's pool of no country. Nil when there is
// none.
func (ps *Pools) Get(kind, country string) *Pool {
	if ps == nil {
		return nil
	}
	return ps.byName[Name(kind, country)]
}

// Names are the pools' names, sorted: what a deployment offers.
func (ps *Pools) Names() []string {
	if ps == nil {
		return nil
	}
	out := make([]string, 0, len(ps.byName))
	for n := range ps.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func isCountry(s string) bool {
	if len(s) != 2 {
		return false
	}
	for _, r := range strings.ToUpper(s) {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// redact hides a proxy URL's password for messages.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}
