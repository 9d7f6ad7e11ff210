// Package crawl holds the service's domain: a crawl's options and status,
// the rules that turn a create request into options, and the error codes the
// rest of the service speaks.
package crawl

import "time"

// Status is the state of a crawl.
type Status string

// The statuses of a crawl. Every status but StatusRunning is terminal.
const (
	StatusRunning   Status = "running"
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	StatusAborted   Status = "aborted"
	StatusTimedOut  Status = "timed_out"
	StatusError     Status = "error"
)

// Terminal reports whether no further transition can leave s.
func (s Status) Terminal() bool { return s != StatusRunning }

// Engine types (engineType, and engine in the older request shape).
const (
	EngineAuto       = "auto"
	EngineCheerio    = "cheerio"
	EnginePlaywright = "playwright"
)

// Origins of a crawl.
const (
	OriginAPI = "api"
	OriginWeb = "web"
)

// Request shapes accepted by POST /crawls.
const (
	ShapeCurrent = "current" // startUrl, engineType
	ShapeLegacy  = "legacy"  // startUrls, engine
)

// Options are a crawl's effective options, after defaults. They are stored
// with the crawl and read by the activities; the workflow never sees them.
type Options struct {
	Shape              string
	StartURLs          []string
	MaxResults         *int // nil: bounded by the server's page cap only
	MaxDepth           int
	UseSitemap         bool
	EntireWebsite      bool
	ExcludeNonMainTags bool
	IncludeLinks       bool
	DeduplicateContent bool
	Extraction         string
	EngineType         string
	UseStaticIPs       bool
	TimeoutSeconds     int
	Origin             string

	IncludeExternalLinks bool
	IncludeOnlyPaths     []string
	ExcludePaths         []string
	IncludeOnlyTags      []string
	ExcludeTags          []string
	MaxConcurrentPages   *int
	Stack                string
}

// Unbounded reports whether maxResults and maxDepth are ignored: with
// useSitemap or entireWebsite only the server's page cap and the timeout
// bound the crawl.
func (o Options) Unbounded() bool { return o.UseSitemap || o.EntireWebsite }

// PageBudget is the most result pages the crawl may store.
func (o Options) PageBudget(serverCap int) int {
	if o.Unbounded() || o.MaxResults == nil || *o.MaxResults > serverCap {
		return serverCap
	}
	return *o.MaxResults
}

// DepthLimit is the deepest link hop followed; -1 means no limit.
func (o Options) DepthLimit() int {
	if o.Unbounded() {
		return -1
	}
	return o.MaxDepth
}

// Concurrency is the number of pages the crawl keeps in flight.
func (o Options) Concurrency(def, limit int) int {
	n := def
	if o.MaxConcurrentPages != nil {
		n = *o.MaxConcurrentPages
	}
	return min(max(n, 1), limit)
}

// Duration of a crawl in whole seconds, from creation to completion (or to
// now while it runs).
func Duration(createdAt time.Time, completedAt *time.Time, now time.Time) int64 {
	end := now
	if completedAt != nil {
		end = *completedAt
	}
	d := int64(end.Sub(createdAt) / time.Second)
	if d < 0 {
		return 0
	}
	return d
}
