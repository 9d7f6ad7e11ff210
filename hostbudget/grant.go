// Package hostbudget shares one politeness budget per host among every
// crawl of every worker: at most Limits.MaxInFlight requests to the host at
// once and Limits.Rate a second, a robots.txt Crawl-delay applied to the
// host (one request at a time, that far apart), and an adaptive back-off
// when the host answers 429 or 503.
//
// Each worker process holds one Budget. It leases a share of each host's
// budget from a Store (Postgres, shared by every worker; Memory within one
// process) and hands that share to its requests locally, so a request
// costs no database round trip. Shares are granted by Grant under one lock
// per host: the slots granted never take the live leases of a host over
// its limit, nor their rates over its rate, and a holder's recorded slots
// never fall below the requests it has in flight (so a limit a throttle
// cuts is reached as those end). Holders that want more than they hold
// split the host max-min fairly at their next renewals, taking turns for
// the slots that do not split evenly. A lease not renewed expires (a dead
// worker's share comes back after the TTL); a holder whose lease has run
// out starts no request.
//
// A 429 or 503 backs the host off at once in the process that saw it, which
// reports it to the store with an immediate renewal; the store tells every
// other holder (Listen), which renews its lease at once and learns the
// back-off: within a few milliseconds, or at its next renewal (a second)
// if the notice is lost. A throttle halves the host's limits (in flight
// and rate; once a SlowEvery, as the answers to requests already in flight
// are of the same overload), and one with a Retry-After leaves the host
// alone until then; the limits double again every RecoverEvery after.
package hostbudget

import (
	"math"
	"sort"
	"time"
)

// Limits bound the requests to one host, by every crawl together.
type Limits struct {
	// MaxInFlight is the most requests at once (at least 1).
	MaxInFlight int
	// Rate is the most requests a second; 0 sets no bound.
	Rate float64
}

// Back-off after a 429 or 503.
const (
	// MaxBackoff caps the wait a Retry-After asks for.
	MaxBackoff = 10 * time.Minute
	// SlowEvery is how often throttles halve a host's limits: the answers
	// of the requests in flight when the first came are of the same
	// overload.
	SlowEvery = time.Second
	// RecoverEvery is how often a throttled host's limits double again
	// once its back-off has ended.
	RecoverEvery = 10 * time.Second
	// minFactor is the smallest share of the limits a host is cut to.
	minFactor = 1.0 / 64
)

// Throttle is a 429 or 503 answer from a host; the zero Throttle is none.
// It is also why a host is paused or slowed, which package crawllog words.
type Throttle struct {
	Status     int
	RetryAfter time.Duration // 0 when the answer named none
}

// Throttles reports whether a response status asks the client to slow down.
func Throttles(status int) bool { return status == 429 || status == 503 }

// State is what the store keeps of a host between renewals: its back-off.
type State struct {
	// Factor is the share of the limits the host gets after back-offs, in
	// (0, 1]; 0 stands for 1 (a host never throttled).
	Factor float64
	// ThrottledAt is when a throttle last halved the limits;
	// BackoffUntil when the pause a Retry-After asked for ends (no later
	// than ThrottledAt without one). Cause is what the host answered.
	ThrottledAt  time.Time
	BackoffUntil time.Time
	Cause        Throttle
}

// Holding is one holder's lease of a host as the store keeps it.
type Holding struct {
	Holder string
	// Slots are the requests it may have in flight (never fewer than it
	// has); Wanted what it asked for; Rate its requests a second (0 when
	// the host has no rate bound).
	Slots, Wanted int
	Rate          float64
	// CrawlDelay is the host's robots.txt Crawl-delay as this holder read
	// it; the longest of the live leases applies.
	CrawlDelay time.Duration
}

// Request is a holder's renewal of its lease of a host.
type Request struct {
	Host, Holder string
	// Want is the slots it asks for (0 gives back what it does not use);
	// InUse the requests it has in flight.
	Want, InUse int
	Limits      Limits
	CrawlDelay  time.Duration
	// Throttle is a 429 or 503 the holder saw since its last renewal.
	Throttle *Throttle
}

// Lease is what a renewal grants.
type Lease struct {
	// Slots is how many requests the holder may have in flight; Rate its
	// requests a second (+Inf: no bound).
	Slots int
	Rate  float64
	// Limit is the host's in-flight limit now, all holders together.
	Limit int
	// Backoff is how long no request may start; Cause is why the host is
	// paused or slowed, Throttled how long ago the last throttle was.
	Backoff   time.Duration
	Cause     Throttle
	Throttled time.Duration
	// Shared is set when other holders lease the host too.
	Shared bool
}

// factorAt is the share of the limits the host has at now: halved by each
// throttle, doubling every RecoverEvery after the back-off ended.
func (s State) factorAt(now time.Time) float64 {
	f := s.Factor
	if f <= 0 || f >= 1 {
		return 1
	}
	if since := now.Sub(s.BackoffUntil); since > 0 {
		f *= math.Pow(2, since.Seconds()/RecoverEvery.Seconds())
	}
	return min(f, 1)
}

// Recovered reports whether the host is back to its full limits at now:
// its state need not be kept.
func (s State) Recovered(now time.Time) bool {
	return !now.Before(s.BackoffUntil) && s.factorAt(now) == 1
}

// throttled is the state after t at now. A throttle halves the limits
// (once each SlowEvery: those within it answer requests already in flight),
// and one with a Retry-After pauses the host until then.
func (s State) throttled(t Throttle, now time.Time) State {
	f, paused := s.factorAt(now), now.Before(s.BackoffUntil)
	if until := now.Add(min(t.RetryAfter, MaxBackoff)); t.RetryAfter > 0 && until.After(s.BackoffUntil) {
		s.BackoffUntil = until
		s.Cause = cause(t)
	}
	if !paused && now.Sub(s.ThrottledAt) >= SlowEvery {
		s.Factor = max(f/2, minFactor)
		s.ThrottledAt, s.BackoffUntil = now, later(s.BackoffUntil, now)
		s.Cause = cause(t)
	}
	return s
}

// cause is t as the host's state keeps it: its wait bounded by
// MaxBackoff.
func cause(t Throttle) Throttle {
	t.RetryAfter = min(t.RetryAfter, MaxBackoff)
	return t
}

// fairShares splits limit slots among the holders that want some, by
// max-min fairness: none gets more than it wants, and what one does not
// want goes to the others. Slots that do not split evenly go to holders in
// an order that turns every rotateEvery, so that with fewer slots than
// holders (a Crawl-delay's one) each has its turn.
func fairShares(wants map[string]int, limit int, now time.Time) map[string]int {
	holders := make([]string, 0, len(wants))
	for h := range wants {
		holders = append(holders, h)
	}
	sort.Strings(holders)
	if n := len(holders); n > 1 {
		turn := int(now.UnixNano()/int64(rotateEvery)) % n
		holders = append(holders[turn:], holders[:turn]...)
	}
	// The smallest wants first: each takes what it wants or an even part
	// of what is left, whichever is less; the holders after it share the
	// rest. Ties keep the turning order.
	sort.SliceStable(holders, func(i, j int) bool { return wants[holders[i]] < wants[holders[j]] })
	shares := make(map[string]int, len(holders))
	left := limit
	for i, h := range holders {
		give := min(wants[h], left/(len(holders)-i))
		shares[h] = give
		left -= give
	}
	return shares
}

// rotateEvery is how often the holders' order for the slots that do not
// split evenly turns.
const rotateEvery = 2 * time.Second

// Grant renews req's lease at now, given the host's state and the other
// live holdings. It returns the host's new state, the holding to record
// for the holder and the lease it gets.
func Grant(st State, others []Holding, req Request, now time.Time) (State, Holding, Lease) {
	if req.Throttle != nil {
		st = st.throttled(*req.Throttle, now)
	}
	f := st.factorAt(now)
	limit := max(1, int(float64(max(req.Limits.MaxInFlight, 1))*f))
	rateLimit := req.Limits.Rate * f
	delay := req.CrawlDelay
	usedSlots, usedRate := 0, 0.0
	wants := map[string]int{}
	for _, o := range others {
		delay = max(delay, o.CrawlDelay)
		usedSlots += o.Slots
		usedRate += o.Rate
		if o.Wanted > 0 {
			wants[o.Holder] = o.Wanted
		}
	}
	if delay > 0 {
		limit = 1
		if r := 1 / delay.Seconds(); rateLimit <= 0 || r < rateLimit {
			rateLimit = r
		}
	}
	slots, rate := 0, 0.0
	if req.Want > 0 {
		wants[req.Holder] = req.Want
		fair := fairShares(wants, limit, now)
		slots = max(0, min(fair[req.Holder], limit-usedSlots))
		if rateLimit > 0 && slots > 0 {
			// The rate in proportion to the fair shares, as much of it
			// as the others leave. A scrap of it would space this
			// holder's requests far apart for long: rather none, until
			// the others give theirs back.
			total := 0
			for _, n := range fair {
				total += n
			}
			part := rateLimit * float64(fair[req.Holder]) / float64(total)
			if rate = min(part, rateLimit-usedRate); rate < part/2 {
				slots, rate = 0, 0
			}
		}
	}
	held := Holding{Holder: req.Holder, Slots: max(slots, req.InUse), Wanted: req.Want, Rate: rate, CrawlDelay: req.CrawlDelay}
	lease := Lease{Slots: slots, Rate: rate, Limit: limit, Shared: len(others) > 0}
	if f < 1 || now.Before(st.BackoffUntil) {
		lease.Cause, lease.Throttled = st.Cause, now.Sub(st.ThrottledAt)
	}
	if rateLimit <= 0 {
		lease.Rate = math.Inf(1)
	}
	if now.Before(st.BackoffUntil) {
		lease.Backoff = st.BackoffUntil.Sub(now)
	}
	return st, held, lease
}
