// Package testsite serves a generated website shaped like a real one, for
// tests and benchmarks: a home page, sections, and pages in a tree under
// them, every page carrying the same navigation bar and footer, links to
// its parent, children and next sibling, and one cross link to a page of
// another section. Pages weigh 8 to 20 KB. The site is deterministic: the
// same size gives the same pages, links and text.
//
// The site counts what it serves, so that a test can tell how often each
// page was fetched, and can be made flaky: some requests answer 429 or
// 503 (with or without Retry-After) and some connections are reset.
package testsite

import (
	"fmt"
	"hash/fnv"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options shape a site.
type Options struct {
	// Pages is how many HTML pages the site has (at least 1).
	Pages int
	// Sections are the home page's children, each the root of a tree;
	// default 6.
	Sections int
	// Fanout is how many children every other page has; default 3.
	Fanout int
	// FailOneIn makes about one request in FailOneIn answer 429 or 503
	// (0: never). Which requests fail depends on the path and how often it
	// was asked for, so a retried page eventually succeeds.
	FailOneIn int
	// ResetOneIn makes about one request in ResetOneIn end with a reset
	// connection and no response (0: never).
	ResetOneIn int
	// Validators has each page carry an ETag and a Last-Modified that
	// change when it is edited, and answer a request that names the
	// current ones 304 Not Modified without a body.
	Validators bool
	// Stamp has each response carry a comment unique to the response (as
	// pages that print when they were served do): two fetches of a page
	// never have the same body, though its text is the same.
	Stamp bool
	// Scripted makes the site client-rendered: every page's address
	// answers the same shell, whose script (/app.js) fetches the page's
	// content from /content/<path> and draws it, navigation included. A
	// page counts as served when its content is fetched.
	Scripted bool
}

// Site is a generated site. It implements http.Handler.
type Site struct {
	opts     Options
	parent   []int
	children [][]int
	depth    []int
	section  []int

	// crossOf is the page count cross links are spread over: the size
	// the site was made with, so that pages added later (Add) do not move
	// the cross links of the others.
	crossOf int

	mu       sync.Mutex
	served   map[int]int // successful page responses by page
	attempts map[string]int
	faults   map[string]int // failed and reset requests by path
	failures int
	resets   int
	// What changes between crawls (see Edit, Remove, Add): each page's
	// edits, the pages removed, and what was served.
	edits       map[int]int
	removed     map[int]bool
	bytes       int
	notModified int
	stamps      int
}

// New builds the site's link structure.
func New(o Options) *Site {
	if o.Pages < 1 {
		o.Pages = 1
	}
	if o.Sections <= 0 {
		o.Sections = 6
	}
	if o.Fanout <= 0 {
		o.Fanout = 3
	}
	s := &Site{opts: o, crossOf: o.Pages, served: map[int]int{}, attempts: map[string]int{}, faults: map[string]int{},
		edits: map[int]int{}, removed: map[int]bool{}}
	s.shape()
	return s
}

// shape lays out the site's tree for its page count. Page numbers are
// given breadth-first, so they grow with depth, and a larger count keeps
// the place of every page of a smaller one.
func (s *Site) shape() {
	o := s.opts
	s.parent, s.children = make([]int, o.Pages), make([][]int, o.Pages)
	s.depth, s.section = make([]int, o.Pages), make([]int, o.Pages)
	s.parent[0] = -1
	next := 1
	for p := 0; p < o.Pages && next < o.Pages; p++ {
		n := o.Fanout
		if p == 0 {
			n = o.Sections
		}
		for i := 0; i < n && next < o.Pages; i++ {
			s.parent[next], s.depth[next] = p, s.depth[p]+1
			s.section[next] = s.section[p]
			if p == 0 {
				s.section[next] = next
			}
			s.children[p] = append(s.children[p], next)
			next++
		}
	}
}

// Edit changes the text of page n (and so its ETag and Last-Modified).
func (s *Site) Edit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.edits[n]++
}

// Edits returns how often page n was edited.
func (s *Site) Edits(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.edits[n]
}

// Remove makes page n answer 404; the pages that link to it still do.
func (s *Site) Remove(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removed[n] = true
}

// Add adds k pages at the end of the tree, and returns their numbers.
// Their parents (and the sibling before each) gain a link to them.
func (s *Site) Add(k int) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.opts.Pages
	s.opts.Pages += k
	s.shape()
	added := make([]int, k)
	for i := range added {
		added[i] = first + i
	}
	return added
}

// Parent returns the page whose tree page n hangs from (-1 for home).
func (s *Site) Parent(n int) int { return s.parent[n] }

// Children returns the pages that hang from page n.
func (s *Site) Children(n int) []int { return s.children[n] }

// Pages is the number of pages of the site.
func (s *Site) Pages() int { return s.opts.Pages }

// Path returns the URL path of page n.
func (s *Site) Path(n int) string {
	if n == 0 {
		return "/"
	}
	return fmt.Sprintf("/s%d/p%d", s.section[n], n)
}

// Depth returns how many link hops page n is from the home page by the
// tree (shared links may make it closer).
func (s *Site) Depth(n int) int { return s.depth[n] }

// page returns the page number of a path, or -1.
func (s *Site) page(path string) int {
	if path == "/" {
		return 0
	}
	sec, rest, ok := strings.Cut(strings.TrimPrefix(path, "/s"), "/p")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || n >= s.opts.Pages || strconv.Itoa(s.section[n]) != sec {
		return -1
	}
	return n
}

// Stats is what the site has served.
type Stats struct {
	// Requests counts successful page responses; Distinct the pages among
	// them; Repeats the responses beyond each page's first.
	Requests, Distinct, Repeats int
	// Failures counts 429 and 503 answers, Resets reset connections.
	Failures, Resets int
	// MostServed is a page served the most, and how often.
	MostServed      string
	MostServedTimes int
	// Bytes counts the page bodies served; NotModified the 304 answers
	// (with Validators), which are not in Requests.
	Bytes, NotModified int
}

// Stats returns what the site has served so far.
func (s *Site) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Distinct: len(s.served), Failures: s.failures, Resets: s.resets, Bytes: s.bytes, NotModified: s.notModified}
	for n, times := range s.served {
		st.Requests += times
		st.Repeats += times - 1
		if times > st.MostServedTimes || (times == st.MostServedTimes && s.Path(n) < st.MostServed) {
			st.MostServed, st.MostServedTimes = s.Path(n), times
		}
	}
	return st
}

// Faults returns, for each path, how many of its requests the site
// answered 429 or 503 or reset (FailOneIn, ResetOneIn).
func (s *Site) Faults() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.faults)
}

// Served returns how often page n was served.
func (s *Site) Served(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served[n]
}

// Reset forgets what the site has served.
func (s *Site) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served, s.attempts, s.failures, s.resets = map[int]int{}, map[string]int{}, 0, 0
	s.faults = map[string]int{}
	s.bytes, s.notModified = 0, 0
}

// ServeHTTP answers a page, robots.txt, or 404.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		return
	}
	path, content := r.URL.Path, false
	if s.opts.Scripted {
		switch {
		case path == "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte(appScript))
			return
		case strings.HasPrefix(path, "/content/"):
			path, content = strings.TrimPrefix(path, "/content"), true
		}
	}
	n := s.page(path)
	s.mu.Lock()
	gone := n < 0 || s.removed[n]
	s.mu.Unlock()
	if gone {
		http.NotFound(w, r)
		return
	}
	if s.opts.Validators && s.notModifiedSince(w, r, n) {
		return
	}
	if s.opts.Scripted && !content {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(shell))
		return
	}
	s.mu.Lock()
	s.attempts[r.URL.Path]++
	roll := roll(r.URL.Path, s.attempts[r.URL.Path])
	fail := s.opts.FailOneIn > 0 && roll%uint32(s.opts.FailOneIn) == 0
	reset := !fail && s.opts.ResetOneIn > 0 && (roll/7)%uint32(s.opts.ResetOneIn) == 0
	switch {
	case fail:
		s.failures++
		s.faults[r.URL.Path]++
	case reset:
		s.resets++
		s.faults[r.URL.Path]++
	default:
		s.served[n]++
	}
	s.mu.Unlock()
	switch {
	case fail:
		switch roll % 3 {
		case 0:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}
		return
	case reset:
		resetConnection(w)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	body := s.HTML(n)
	if content {
		body = s.Body(n)
	}
	s.mu.Lock()
	if s.opts.Stamp {
		s.stamps++
		body = append(body, fmt.Sprintf("<!-- response %d -->\n", s.stamps)...)
	}
	s.bytes += len(body)
	s.mu.Unlock()
	w.Write(body)
}

// modifiedAt is when page n was last edited, as the site says.
func (s *Site) modifiedAt(n int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(s.edits[n]) * time.Hour)
}

// notModifiedSince sets page n's validators on w and, when the request
// names the current ones, answers 304 and reports true.
func (s *Site) notModifiedSince(w http.ResponseWriter, r *http.Request, n int) bool {
	// The ETag names the content (a page also changes when pages are
	// added below it); the Last-Modified only its edits, as many servers
	// keep it: If-None-Match, when sent, decides.
	sum := fnv.New64a()
	sum.Write(s.HTML(n))
	etag := fmt.Sprintf(`"%x"`, sum.Sum64())
	s.mu.Lock()
	modified := s.modifiedAt(n)
	s.mu.Unlock()
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", modified.Format(http.TimeFormat))
	match := false
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		match = inm == etag
	} else if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil {
		match = !modified.After(ims)
	}
	if !match {
		return false
	}
	s.mu.Lock()
	s.notModified++
	s.mu.Unlock()
	w.WriteHeader(http.StatusNotModified)
	return true
}

// roll is a deterministic number for the attempt-th request of path.
func roll(path string, attempt int) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s#%d", path, attempt)
	return h.Sum32()
}

// resetConnection closes the request's connection with a TCP reset.
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

var words = strings.Fields(`crawl durable page section guide release index archive
	reference install server client browser network request response header
	cache queue worker batch frontier markdown content article summary detail
	history station river mountain garden harbour market library bridge valley
	signal orbit lantern meadow copper violet timber canyon pepper marble`)

// shell is what every address of a Scripted site answers: no text, no
// link, a script that draws the page.
const shell = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Example Docs</title>" +
	"<link rel=\"stylesheet\" href=\"/site.css\"><script src=\"/app.js\" defer></script></head><body>\n" +
	"<div id=\"app\"></div>\n</body></html>\n"

// appScript draws a Scripted site's page from its content, fetched after
// the page has loaded, as client-rendered sites do.
const appScript = `fetch('/content' + location.pathname).then(function (r) {
  if (!r.ok) throw new Error('no such page');
  return r.text();
}).then(function (html) {
  document.getElementById('app').innerHTML = html;
  var h1 = document.querySelector('h1');
  if (h1) document.title = h1.textContent;
}).catch(function () {
  document.getElementById('app').innerHTML = '<h1>Not found</h1>';
});
`

// title is page n's title.
func (s *Site) title(n int) string {
	if n == 0 {
		return "Home"
	}
	return fmt.Sprintf("Page %d of section %d", n, s.section[n])
}

// HTML returns the page n.
func (s *Site) HTML(n int) []byte {
	var b strings.Builder
	b.Grow(20 << 10)
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>"+
		"<link rel=\"stylesheet\" href=\"/site.css\"><script src=\"/site.js\" defer></script></head><body>\n", s.title(n))
	b.Write(s.Body(n))
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// Body returns what page n's body holds (what a Scripted site's script
// draws): navigation, article, sidebar and footer.
func (s *Site) Body(n int) []byte {
	var b strings.Builder
	b.Grow(20 << 10)
	title := s.title(n)
	// The navigation bar every page shares: home and the sections.
	b.WriteString(`<header class="site-header"><a class="logo" href="/">Example Docs</a><nav class="main-nav"><ul>`)
	for _, sec := range s.children[0] {
		fmt.Fprintf(&b, `<li><a href="%s">Section %d</a></li>`, s.Path(sec), sec)
	}
	b.WriteString("</ul></nav></header>\n")
	if n > 0 {
		fmt.Fprintf(&b, `<nav class="breadcrumbs"><a href="/">Home</a> › <a href="%s">Up</a></nav>`, s.Path(s.parent[n]))
	}
	fmt.Fprintf(&b, "<main><article><h1>%s</h1>\n", title)
	s.mu.Lock()
	edits := s.edits[n]
	s.mu.Unlock()
	if edits > 0 {
		fmt.Fprintf(&b, "<p>This page was revised %d times since it was first written.</p>\n", edits)
	}
	rng := uint32(n)*2654435761 + 1
	next := func() uint32 { rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng }
	paragraphs := 11 + int(uint32(n)*37%16)
	for i := 0; i < paragraphs; i++ {
		if i%4 == 2 {
			fmt.Fprintf(&b, "<h2>Part %d of page %d</h2>\n", i/4+1, n)
		}
		b.WriteString("<p>")
		for w := 0; w < 90; w++ {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[next()%uint32(len(words))])
		}
		fmt.Fprintf(&b, " (page %d, paragraph %d).</p>\n", n, i)
	}
	// Links within the article: children, next sibling, a cross link.
	b.WriteString("<h2>Read on</h2><ul>")
	for _, c := range s.children[n] {
		fmt.Fprintf(&b, `<li><a href="%s">Page %d</a></li>`, s.Path(c), c)
	}
	if n > 0 {
		sib := s.children[s.parent[n]]
		for i, c := range sib {
			if c == n && i+1 < len(sib) {
				fmt.Fprintf(&b, `<li><a href="%s">Next: page %d</a></li>`, s.Path(sib[i+1]), sib[i+1])
			}
		}
	}
	if s.crossOf > 1 {
		cross := int((uint64(n)*7919 + 13) % uint64(s.crossOf))
		fmt.Fprintf(&b, `<li><a href="%s">Related: page %d</a></li>`, s.Path(cross), cross)
	}
	b.WriteString("</ul></article>\n")
	b.WriteString(`<aside class="sidebar"><h3>Popular</h3><ul>`)
	for _, sec := range s.children[0] {
		if len(s.children[sec]) > 0 {
			fmt.Fprintf(&b, `<li><a href="%s">Popular page %d</a></li>`, s.Path(s.children[sec][0]), s.children[sec][0])
		}
	}
	b.WriteString("</ul></aside></main>\n")
	b.WriteString(`<footer><p>Example Docs is written by its readers. Every page may be copied and shared.</p>` +
		`<a href="/">Home</a> <a href="` + s.Path(min(1, s.opts.Pages-1)) + `">Getting started</a></footer>` + "\n")
	return []byte(b.String())
}
