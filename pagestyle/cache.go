package pagestyle

import (
	"hash/maphash"
	"sync"
)

// Cached parses a <style> element's text, once for each text while it is
// remembered: a site's pages repeat the same styles in every page.
func Cached(text string) *Sheet {
	if len(text) < minCached {
		return Parse([]byte(text))
	}
	key := maphash.String(seed, text)
	styleCache.Lock()
	s, ok := styleCache.sheets[key]
	styleCache.Unlock()
	if ok {
		return s
	}
	s = Parse([]byte(text))
	styleCache.Lock()
	if len(styleCache.sheets) >= maxCached {
		clear(styleCache.sheets) // the next pages' styles fill it again
	}
	styleCache.sheets[key] = s
	styleCache.Unlock()
	return s
}

// minCached is the shortest text remembered; maxCached, the most sheets.
const (
	minCached = 256
	maxCached = 512
)

var (
	seed       = maphash.MakeSeed()
	styleCache = struct {
		sync.Mutex
		sheets map[uint64]*Sheet
	}{sheets: map[uint64]*Sheet{}}
)
