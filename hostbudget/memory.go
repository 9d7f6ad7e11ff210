package hostbudget

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store within one process: the budgets of Budgets that share
// it, as Postgres shares them between processes (db.Store.Lease).
type Memory struct {
	mu        sync.Mutex
	states    map[string]State
	leases    map[string]map[string]memoryLease // by host, then holder
	listeners map[*func(string)]bool
}

type memoryLease struct {
	Holding
	expires time.Time
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{states: map[string]State{}, leases: map[string]map[string]memoryLease{}, listeners: map[*func(string)]bool{}}
}

// Lease renews req's lease under the store's lock.
func (m *Memory) Lease(_ context.Context, req Request, ttl time.Duration) (Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	held := m.leases[req.Host]
	if held == nil {
		held = map[string]memoryLease{}
		m.leases[req.Host] = held
	}
	var others []Holding
	for holder, l := range held {
		switch {
		case !now.Before(l.expires):
			delete(held, holder)
		case holder != req.Holder:
			others = append(others, l.Holding)
		}
	}
	before := m.states[req.Host]
	st, mine, lease := Grant(before, others, req, now)
	m.states[req.Host] = st
	if st.BackoffUntil != before.BackoffUntil {
		for l := range m.listeners {
			go (*l)(req.Host)
		}
	}
	held[req.Holder] = memoryLease{Holding: mine, expires: now.Add(ttl)}
	return lease, nil
}

// Release drops holder's leases of hosts.
func (m *Memory) Release(_ context.Context, holder string, hosts []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, h := range hosts {
		delete(m.leases[h], holder)
	}
	return nil
}

// Listen calls backoff for each host backed off until ctx is done.
func (m *Memory) Listen(ctx context.Context, backoff func(host string)) error {
	m.mu.Lock()
	m.listeners[&backoff] = true
	m.mu.Unlock()
	<-ctx.Done()
	m.mu.Lock()
	delete(m.listeners, &backoff)
	m.mu.Unlock()
	return nil
}

// Holdings are the live leases of host, for tests.
func (m *Memory) Holdings(host string) []Holding {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Holding
	now := time.Now()
	for _, l := range m.leases[host] {
		if now.Before(l.expires) {
			out = append(out, l.Holding)
		}
	}
	return out
}
