package db

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Transient reports whether err is a database failure that the same work
// can get past when tried again: a deadlock, a serialization failure, a
// server shutting down or starting, or a connection that dropped or could
// not be made.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		code := pgErr.Field('C')
		switch {
		case code == "40P01", code == "40001": // deadlock, serialization failure
			return true
		case strings.HasPrefix(code, "08"): // connection exceptions
			return true
		case code == "57P01", code == "57P02", code == "57P03": // shutdown, crash, starting up
			return true
		case code == "53300": // too many connections
			return true
		}
		return false
	}
	var netErr net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || errors.As(err, &netErr)
}

// retryFor bounds how long one unit of work is retried after transient
// failures; a longer outage fails the caller (an activity, which Temporal
// retries with its own backoff).
const retryFor = 20 * time.Second

// retry runs fn until it succeeds, fails for good, or retryFor has passed.
// fn must be safe to run again after a transient failure: a statement on
// its own, or a whole transaction (which the failure rolled back).
func retry(ctx context.Context, fn func(ctx context.Context) error) error {
	deadline := time.Now().Add(retryFor)
	wait := 20 * time.Millisecond
	for {
		err := fn(ctx)
		if err == nil || !Transient(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		// Jitter spreads the retries of writers that deadlocked together.
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

// inTx runs fn in a transaction, retried as a whole after a transient
// failure.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return retry(ctx, func(ctx context.Context) error { return s.db.RunInTx(ctx, nil, fn) })
}
