package hostbudget

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// Store keeps the leases and the back-off of every host, for every holder.
type Store interface {
	// Lease renews req's lease (see Grant) for ttl, under the host's lock.
	Lease(ctx context.Context, req Request, ttl time.Duration) (Lease, error)
	// Release gives back the holder's leases of hosts.
	Release(ctx context.Context, holder string, hosts []string) error
	// Listen calls backoff with the name of each host a throttle backs
	// off, from any holder, until ctx is done.
	Listen(ctx context.Context, backoff func(host string)) error
}

// How a Budget renews its leases.
const (
	// TTL is how long a lease lasts unrenewed: a holder that stopped
	// renewing (a dead worker) gives its share back after it.
	TTL = 10 * time.Second
	// renewEvery is how often a lease in use is renewed: how soon a holder
	// hears of another's throttle. contendedEvery is how often while the
	// holder wants more than it holds.
	renewEvery     = time.Second
	contendedEvery = 100 * time.Millisecond
	// idleRelease is how long a host goes without requests before its
	// lease is given back.
	idleRelease = 2 * time.Second
	// renewers is how many renewals run at once, each within
	// renewTimeout.
	renewers     = 8
	renewTimeout = 3 * time.Second
	// delayKept is how long a Crawl-delay outlives the last sight of it.
	delayKept = 10 * time.Minute
)

// Budget hands out one process's share of every host's budget. It is safe
// for concurrent use; Close gives the shares back.
type Budget struct {
	store  Store
	holder string
	limits Limits
	log    *slog.Logger

	mu    sync.Mutex
	hosts map[string]*host
	// delays are the hosts' robots.txt Crawl-delays, kept while their
	// entries come and go.
	delays    map[string]time.Duration
	delaySeen map[string]time.Time
	kick      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	// listening ends Listen on Close.
	listening context.CancelFunc
	listened  chan struct{}
}

// host is a Budget's view of one host.
type host struct {
	name    string
	slots   int // granted by the lease
	inUse   int
	waiters []*waiter // for a slot, first come first served
	woken   int       // waiters woken for a free slot, not started yet
	// interval is the least time between two requests' starts (by its
	// rate; 0: none); next is when the next may start, lastStart when the
	// last did (or will, once its turn comes).
	interval        time.Duration
	next, lastStart time.Time
	// expires is when the lease runs out (local clock); renewed when it
	// was last renewed.
	expires, renewed time.Time
	backoffUntil     time.Time
	backoffCause     Throttle
	// slow says why the host's limits are below the budget's (a
	// throttle), the zero Throttle when they are not, and slowSince since
	// when; slowedAt is when this process last halved them; limit the
	// host's in-flight limit now.
	slow      Throttle
	slowSince time.Time
	slowedAt  time.Time
	limit     int
	leased    bool      // the store holds a lease of this process's
	throttle  *Throttle // seen since the last renewal
	wanted    int       // asked for at the last renewal
	idleSince time.Time
}

type waiter struct {
	ch    chan struct{}
	woken bool
}

// New returns a Budget that leases from store with limits, and starts its
// renewals. holder names the process in the store ("" makes one up from
// the host name and process ID).
func New(store Store, limits Limits, holder string, log *slog.Logger) *Budget {
	if holder == "" {
		holder = Holder()
	}
	if log == nil {
		log = slog.Default()
	}
	b := &Budget{store: store, holder: holder, limits: limits, log: log, hosts: map[string]*host{}, delays: map[string]time.Duration{}, delaySeen: map[string]time.Time{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), listened: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	b.listening = cancel
	go b.run()
	go b.listen(ctx)
	return b
}

// listen renews at once the lease of a host another holder backed off,
// so that this process stops sending it requests within a round trip.
func (b *Budget) listen(ctx context.Context) {
	defer close(b.listened)
	for ctx.Err() == nil {
		err := b.store.Listen(ctx, func(name string) {
			b.mu.Lock()
			if h := b.hosts[name]; h != nil {
				h.renewed = time.Time{}
				b.wakeRenewer()
			}
			b.mu.Unlock()
		})
		if err != nil && ctx.Err() == nil {
			b.log.Warn("host budget: listen for back-offs", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// Holder is a name for this process in the store, different in every
// process.
func Holder() string {
	name, _ := os.Hostname()
	var r [4]byte
	_, _ = rand.Read(r[:])
	return name + "-" + hex.EncodeToString(r[:])
}

// Limits are the limits the Budget was made with.
func (b *Budget) Limits() Limits { return b.limits }

// Wait is a request held back by a host's throttle: paused until Until
// (a Retry-After), or, with Until zero, slowed to Limit requests at once.
type Wait struct {
	Host  string
	Until time.Time
	// Cause is what the host answered.
	Cause Throttle
	Limit int
	// Since is when the host was slowed (with Until zero).
	Since time.Time
}

type noticeKey struct{}

// WithNotice returns ctx whose Acquire calls report to notice when they
// wait for a host a throttle paused or slowed (once each for each call).
func WithNotice(ctx context.Context, notice func(Wait)) context.Context {
	return context.WithValue(ctx, noticeKey{}, notice)
}

// ErrClosed is returned by Acquire once the Budget is closed.
var ErrClosed = errors.New("the host budget is closed")

// Slot is one request's place in its host's budget.
type Slot struct {
	b    *Budget
	h    *host
	once sync.Once
}

// Acquire waits until a request to hostName (host[:port]) may start: the
// host is not backing off, this process holds a free slot of it, and its
// rate allows one more. The Slot must be released when the response has
// been read.
func (b *Budget) Acquire(ctx context.Context, hostName string) (*Slot, error) {
	hostName = strings.ToLower(hostName)
	var noticed Wait
	notify := func(w Wait) {
		if w != noticed {
			noticed = w
			if notice, ok := ctx.Value(noticeKey{}).(func(Wait)); ok {
				notice(w)
			}
		}
	}
	for {
		b.mu.Lock()
		if b.closed() {
			b.mu.Unlock()
			return nil, ErrClosed
		}
		h := b.hostLocked(hostName)
		now := time.Now()
		switch {
		case now.Before(h.backoffUntil):
			until, why := h.backoffUntil, h.backoffCause
			b.mu.Unlock()
			notify(Wait{Host: hostName, Until: until, Cause: why})
			t := time.NewTimer(time.Until(until))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		case h.inUse+h.woken < h.slots && now.Before(h.expires) && len(h.waiters) == 0:
			h.inUse++
			if s, ok, err := b.take(ctx, h); ok || err != nil {
				return s, err
			}
		default:
			w := &waiter{ch: make(chan struct{})}
			h.waiters = append(h.waiters, w)
			slowed := Wait{Host: hostName, Cause: h.slow, Limit: h.limit, Since: h.slowSince}
			if h.slots == 0 || !now.Before(h.expires) || now.Sub(h.renewed) >= contendedEvery {
				b.wakeRenewer() // a renewal may get it more
			}
			b.mu.Unlock()
			if slowed.Cause != (Throttle{}) {
				notify(slowed)
			}
			select {
			case <-w.ch:
				// Woken: first in line now, try again.
				b.mu.Lock()
				h.woken--
				if now := time.Now(); h.inUse < h.slots && now.Before(h.expires) && !now.Before(h.backoffUntil) {
					h.inUse++
					if s, ok, err := b.take(ctx, h); ok || err != nil {
						return s, err
					}
					continue
				}
				b.mu.Unlock()
			case <-ctx.Done():
				b.mu.Lock()
				if w.woken {
					h.woken--
					b.wakeLocked(h) // pass the turn on
				} else {
					h.removeWaiter(w)
				}
				b.mu.Unlock()
				return nil, ctx.Err()
			}
		}
	}
}

// take starts a request in the slot of h just taken (called with b.mu
// held, which it releases) at the host's next turn by its rate. It returns
// false, with the slot given back, when a back-off began meanwhile.
func (b *Budget) take(ctx context.Context, h *host) (*Slot, bool, error) {
	now := time.Now()
	at := later(now, h.next)
	h.next, h.lastStart = at.Add(h.interval), at
	b.mu.Unlock()
	s := &Slot{b: b, h: h}
	if wait := at.Sub(now); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			s.Release()
			return nil, false, ctx.Err()
		}
		// Still this process's to start: not backing off, the lease live,
		// the slot within a share that may have shrunk meanwhile.
		b.mu.Lock()
		now := time.Now()
		ok := !now.Before(h.backoffUntil) && now.Before(h.expires) && h.inUse <= h.slots && !b.closed()
		b.mu.Unlock()
		if !ok {
			s.Release()
			return nil, false, nil
		}
	}
	return s, true, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// intervalOf is the least time between two requests at rate a second.
func intervalOf(rate float64) time.Duration {
	if rate <= 0 || math.IsInf(rate, 1) {
		return 0
	}
	return time.Duration(float64(time.Second) / rate)
}

// hostLocked is the entry of a host, made on first use.
func (b *Budget) hostLocked(name string) *host {
	h, ok := b.hosts[name]
	if !ok {
		h = &host{name: name}
		b.hosts[name] = h
	}
	return h
}

// crawlDelayLocked applies a host's Crawl-delay d to its entry at once,
// whatever a lease granted before the store heard of it: one request at
// a time, d apart.
func (b *Budget) crawlDelayLocked(h *host, d time.Duration) {
	if d <= 0 {
		return
	}
	h.slots = min(h.slots, 1)
	if d > h.interval {
		h.interval = d
		h.next = later(h.next, h.lastStart.Add(d))
	}
}

func (h *host) removeWaiter(w *waiter) {
	for i, o := range h.waiters {
		if o == w {
			h.waiters = append(h.waiters[:i], h.waiters[i+1:]...)
			return
		}
	}
}

// wakeLocked wakes as many waiters of h as it has free slots.
func (b *Budget) wakeLocked(h *host) {
	for free := h.slots - h.inUse - h.woken; free > 0 && len(h.waiters) > 0; free-- {
		w := h.waiters[0]
		h.waiters = h.waiters[1:]
		w.woken = true
		h.woken++
		close(w.ch)
	}
}

// Report tells the budget what the host answered: a 429 or 503 backs the
// host off at once, here, and for every holder after the next renewal.
func (s *Slot) Report(status int, retryAfter time.Duration) {
	if !Throttles(status) {
		return
	}
	b, h := s.b, s.h
	b.mu.Lock()
	t := Throttle{Status: status, RetryAfter: retryAfter}
	h.throttle = &t
	// At once here; the store's answer (other holders' throttles, the
	// halving it applies) follows with the renewal this asks for.
	now := time.Now()
	if until := now.Add(min(retryAfter, MaxBackoff)); until.After(h.backoffUntil) {
		h.backoffUntil, h.backoffCause = until, cause(t)
	}
	if now.Sub(h.slowedAt) >= SlowEvery {
		h.slowedAt, h.slow, h.slowSince = now, cause(t), now
		if h.slots > 1 {
			h.slots /= 2
		}
	}
	b.mu.Unlock()
	b.wake()
}

// Release gives the slot back; later calls do nothing.
func (s *Slot) Release() {
	s.once.Do(func() {
		s.b.mu.Lock()
		s.h.inUse--
		s.b.wakeLocked(s.h)
		s.b.mu.Unlock()
	})
}

// SetCrawlDelay records a host's robots.txt Crawl-delay (0: none), which
// applies here at once and, with the next renewal, to every holder. A
// delay is kept delayKept after it was last seen whatever a 0 says (a
// robots.txt that failed to load reads as allowing everything).
func (b *Budget) SetCrawlDelay(hostName string, d time.Duration) {
	hostName = strings.ToLower(hostName)
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if d > 0 {
		b.delaySeen[hostName] = now
	}
	if b.delays[hostName] == d {
		return
	}
	if d > 0 {
		b.delays[hostName] = d
	} else if now.Sub(b.delaySeen[hostName]) < delayKept {
		return // a robots.txt that could not be read says nothing
	} else {
		delete(b.delays, hostName)
		delete(b.delaySeen, hostName)
	}
	if h := b.hosts[hostName]; h != nil {
		b.crawlDelayLocked(h, d)
		h.renewed = time.Time{} // renew now
		b.wakeRenewer()
	}
}

func (b *Budget) wake() {
	b.mu.Lock()
	b.wakeRenewer()
	b.mu.Unlock()
}

func (b *Budget) wakeRenewer() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

func (b *Budget) closed() bool {
	select {
	case <-b.stop:
		return true
	default:
		return false
	}
}

// Close stops the renewals and gives every lease back.
func (b *Budget) Close() {
	b.mu.Lock()
	if b.closed() {
		b.mu.Unlock()
		return
	}
	close(b.stop)
	b.mu.Unlock()
	b.listening()
	<-b.listened
	<-b.done
	b.mu.Lock()
	names := make([]string, 0, len(b.hosts))
	for name, h := range b.hosts {
		names = append(names, name)
		for _, w := range h.waiters {
			w.woken = true
			h.woken++
			close(w.ch)
		}
		h.waiters, h.slots = nil, 0
	}
	b.mu.Unlock()
	if len(names) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := b.store.Release(ctx, b.holder, names); err != nil {
			b.log.Warn("host budget: release the leases", "err", err)
		}
	}
}

// run renews the leases in use until Close.
func (b *Budget) run() {
	defer close(b.done)
	tick := time.NewTicker(contendedEvery)
	defer tick.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-tick.C:
		case <-b.kick:
		}
		b.renewDue()
	}
}

// renewDue renews the leases that are due and gives back those of hosts
// idle for a while.
func (b *Budget) renewDue() {
	now := time.Now()
	var due []Request
	var idle []string
	b.mu.Lock()
	for name, h := range b.hosts {
		demand := h.inUse + len(h.waiters)
		want := min(2*demand, b.limits.MaxInFlight)
		if demand == 0 && h.throttle == nil {
			if h.idleSince.IsZero() {
				h.idleSince = now
			} else if now.Sub(h.idleSince) >= max(idleRelease, b.delays[name]) {
				delete(b.hosts, name)
				if h.leased {
					idle = append(idle, name)
				}
				continue
			}
			// Idle for a moment: keep the share, and keep hearing of
			// back-offs.
			want = h.wanted
		} else {
			h.idleSince = time.Time{}
		}
		since := now.Sub(h.renewed)
		if h.throttle == nil && since < renewEvery && !(demand > h.slots && since >= contendedEvery) &&
			now.Before(h.expires) {
			continue
		}
		due = append(due, Request{Host: name, Holder: b.holder, Want: want,
			InUse: h.inUse, Limits: b.limits, CrawlDelay: b.delays[name], Throttle: h.throttle})
		h.throttle, h.renewed, h.wanted = nil, now, want
	}
	b.mu.Unlock()
	// Reports of throttles and hosts without a lease first, a few at once,
	// each within its own time.
	sort.SliceStable(due, func(i, j int) bool { return urgent(due[i]) && !urgent(due[j]) })
	sem := make(chan struct{}, renewers)
	var wg sync.WaitGroup
	for _, req := range due {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			ctx, cancel := context.WithTimeout(context.Background(), renewTimeout)
			defer cancel()
			start := time.Now()
			l, err := b.store.Lease(ctx, req, TTL)
			if err != nil {
				b.log.Warn("host budget: renew a lease", "host", req.Host, "err", err)
				b.mu.Lock()
				if h := b.hosts[req.Host]; h != nil && req.Throttle != nil && h.throttle == nil {
					h.throttle = req.Throttle // report it with the next renewal
				}
				b.mu.Unlock()
				return
			}
			b.apply(req.Host, l, start)
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), renewTimeout)
	defer cancel()
	if len(idle) > 0 {
		if err := b.store.Release(ctx, b.holder, idle); err != nil {
			b.log.Warn("host budget: release idle leases", "err", err)
		}
	}
}

// urgent reports whether a renewal carries a throttle or asks for a
// first share.
func urgent(r Request) bool { return r.Throttle != nil || r.InUse == 0 && r.Want > 0 }

// apply takes a renewed lease, asked for at start, into the host's entry.
func (b *Budget) apply(name string, l Lease, start time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[name]
	if h == nil {
		h = b.hostLocked(name) // given back meanwhile; the lease is live
	}
	now := time.Now()
	interval := intervalOf(l.Rate)
	if h.slots == 0 && l.Slots > 0 && l.Shared {
		// A share just gained waits a turn: the host's last request may
		// have been another holder's.
		h.next = later(h.next, now.Add(interval))
	}
	if interval != h.interval {
		// lastStart is the latest turn taken: the next comes an interval
		// after it, sooner or later than before.
		h.interval = interval
		h.next = h.lastStart.Add(interval)
	}
	h.leased = true
	h.slots, h.limit = l.Slots, l.Limit
	h.slow = Throttle{}
	if l.Limit < b.limits.MaxInFlight && l.Cause != (Throttle{}) {
		h.slow, h.slowSince = l.Cause, now.Add(-l.Throttled)
	}
	h.expires = start.Add(TTL - TTL/4) // ahead of the store's clock, never behind
	if l.Backoff > 0 {
		if until := now.Add(l.Backoff); until.After(h.backoffUntil) {
			h.backoffUntil, h.backoffCause = until, l.Cause
		}
	}
	b.crawlDelayLocked(h, b.delays[name])
	b.wakeLocked(h)
}
