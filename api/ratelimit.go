package api

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/durablecrawl/crawler/crawl"
)

// keyLimiter bounds how often each API key may create a crawl: a token
// bucket per key, refilled at perMinute a minute, holding up to burst.
// The buckets live in this process; the map grows with the keys that
// create crawls, which the database bounds.
type keyLimiter struct {
	every rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[uuid.UUID]*rate.Limiter
}

// newKeyLimiter returns a limiter, or nil (no limit) when perMinute is 0.
func newKeyLimiter(perMinute float64, burst int) *keyLimiter {
	if perMinute <= 0 {
		return nil
	}
	return &keyLimiter{every: rate.Limit(perMinute / 60), burst: max(burst, 1),
		buckets: map[uuid.UUID]*rate.Limiter{}}
}

// allow takes a token for key, or says how long until one is there.
func (l *keyLimiter) allow(key uuid.UUID) (wait time.Duration, ok bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(l.every, l.burst)
		l.buckets[key] = b
	}
	l.mu.Unlock()
	now := time.Now()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// limitCreate answers 429 with Retry-After (whole seconds, rounded up)
// when the caller's key has created crawls too fast.
func (s *server) limitCreate(c *fiber.Ctx) error {
	wait, ok := s.limiter.allow(principal(c).KeyID)
	if ok {
		return nil
	}
	secs := int(math.Ceil(wait.Seconds()))
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	return crawl.Errorf(crawl.ERATELIMITED, "this API key creates crawls too fast; retry in %d s", secs)
}
