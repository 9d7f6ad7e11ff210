package main

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// The worker's garbage collector settings, unless GOGC or GOMEMLIMIT say
// otherwise. A worker's live heap is small (the pages in flight and their
// trees), and it allocates a great deal per page: collecting when the heap
// has grown by twice what is live, rather than Go's default of once,
// spends about an eighth less of the machine's CPU a page for about 20 to
// 40 MB more resident memory (docs/benchmarks.md; four times saved little
// more and grew the worker with the crawl's size). The soft limit makes
// the collector work harder before the heap passes it: on a page at the
// size cap the heap would otherwise grow to three times what is live
// (about 100 MB then, the page's tree and copies), and with the limit the
// process stays under 250 MB. An ordinary crawl's worker stays well below
// it (about 130 MB), so the limit costs it nothing.
const (
	workerGCPercent   = 200
	workerMemoryLimit = 192 << 20
)

// tuneGC applies the worker's collector settings where the operator did
// not set Go's own variables, and logs what holds.
func tuneGC(logger *slog.Logger) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(workerGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(workerMemoryLimit)
	}
	gcPercent := debug.SetGCPercent(-1)
	debug.SetGCPercent(gcPercent)
	logger.Info("garbage collector", "gogc", gcPercent, "memoryLimitMiB", debug.SetMemoryLimit(-1)>>20)
}
