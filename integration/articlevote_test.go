package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestArticleCommentsOutvoted: a news site whose stories call themselves
// articles and carry a readers' comment thread in their community
// software's markup, crawled with the defaults: each stored story keeps
// its paragraphs and loses the thread, and its "Page crawled" entry counts
// the words that went as outvoted.
func TestArticleCommentsOutvoted(t *testing.T) {
	t.Parallel()
	const stories = 4
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := stories // the front page is a story of its own
		if _, err := fmt.Sscanf(r.URL.Path, "/story/%d", &i); r.URL.Path != "/" && (err != nil || i < 0 || i >= stories) {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>Harbour news</title><meta property="og:type" content="article"></head><body><nav><a href="/">Home</a>`)
		for j := range stories {
			fmt.Fprintf(&b, ` <a href="/story/%d">Story %d</a>`, j, j)
		}
		fmt.Fprintf(&b, `</nav><div class="page"><article><h1>Story %d about the harbour</h1>`, i)
		for _, topic := range []string{"dredging the channel", "the east quay's moorings", "the winter ferry", "the customs house", "the breakwater"} {
			fmt.Fprintf(&b, "<p>In story %d, residents spoke about %s for an hour, and the council listened before it voted on %s late at night.</p>", i, topic, topic)
		}
		b.WriteString(`</article><div class="full community page"><span class="body" role="main"><div role="region" class="sect sect_commentlinks">` +
			`<div class="secthead"><h2>Reader comments</h2></div><ul role="directory" class="sectbody directory">`)
		for c := range 6 {
			fmt.Fprintf(&b, `<li class="member"><a class="author person" href="/!ku%d/"><h4>reader%d</h4></a><time datetime="2026-01-14T13:0%d:00+01:00">14. 01. 2026</time>`+
				`<div class="objlink nolead" role="link"><p>Comment %d on story %d: nobody asked the people who work on the quay every morning what they need from it.</p></div>`+
				`<ul class="toolbar"><li class="reply"><a title="reply to this comment">reply</a></li><li class="report"><a title="report this comment">report</a></li></ul></li>`, c, c, c, c, i)
		}
		b.WriteString(`</ul></div></span></div></div><footer>© Harbour news</footer></body></html>`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	c := crawlSite(t, env.api, srv, map[string]any{}, "succeeded")
	if c.crawl.TotalPages != stories+1 {
		t.Fatalf("stored %d pages, want %d", c.crawl.TotalPages, stories+1)
	}
	outvoted := map[string]float64{}
	for _, l := range c.logs {
		if url, _ := l.Data["url"].(string); l.Message == "Page crawled" {
			if w, ok := l.Data["words"].(map[string]any); ok {
				outvoted[strings.TrimPrefix(url, srv.URL)], _ = w["outvoted"].(float64)
			}
		}
	}
	for i := range stories + 1 {
		path := fmt.Sprintf("/story/%d", i)
		if i == stories {
			path = "/"
		}
		p, ok := c.pages[path]
		if !ok {
			t.Errorf("%s not stored", path)
			continue
		}
		if !strings.Contains(p.Markdown, fmt.Sprintf("In story %d, residents spoke about the breakwater", i)) {
			t.Errorf("%s lost its last paragraph:\n%s", path, p.Markdown)
		}
		if strings.Contains(p.Markdown, "nobody asked the people") || strings.Contains(p.Markdown, "reader3") {
			t.Errorf("%s keeps its comment thread:\n%s", path, p.Markdown)
		}
		if outvoted[path] < 6*15 {
			t.Errorf("%s: its log counts %v words outvoted, want the thread's", path, outvoted[path])
		}
	}
}
