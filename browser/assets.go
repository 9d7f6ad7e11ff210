package browser

import (
	"container/list"
	"sync"
)

// assetCache keeps the scripts and stylesheets the pages of a crawl load,
// so that each is downloaded once per crawl rather than once per page (a
// documentation site loads the same search index and theme on every
// page). An entry belongs to a scope (a crawl): no crawl is served what
// another one loaded. The least recently used entries go first once the
// cache holds maxBytes.
type assetCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of *asset, most recently used first
	byKey    map[string]*list.Element
}

// asset is a cached response.
type asset struct {
	key     string
	status  int
	headers map[string]string
	body    []byte
}

// maxAssetBytes is the largest response cached; maxCacheBytes bounds the
// cache as a whole.
const (
	maxAssetBytes = 4 << 20
	maxCacheBytes = 64 << 20
)

func newAssetCache(maxBytes int) *assetCache {
	return &assetCache{maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

func assetKey(scope, url string) string { return scope + "\x00" + url }

func (c *assetCache) get(scope, url string) (*asset, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[assetKey(scope, url)]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*asset), true
}

func (c *assetCache) put(scope, url string, a *asset) {
	if len(a.body) > maxAssetBytes || len(a.body) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a.key = assetKey(scope, url)
	if e, ok := c.byKey[a.key]; ok {
		c.bytes -= len(e.Value.(*asset).body)
		c.order.Remove(e)
	}
	c.byKey[a.key] = c.order.PushFront(a)
	c.bytes += len(a.body)
	for c.bytes > c.maxBytes {
		last := c.order.Back()
		old := last.Value.(*asset)
		c.order.Remove(last)
		delete(c.byKey, old.key)
		c.bytes -= len(old.body)
	}
}
