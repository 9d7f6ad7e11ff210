// Package crawllog holds the entries of a crawl's log, as GET
// /crawl-logs lists them: one constructor per kind of entry, the only
// place their levels and wording live, and End, the one way a crawl ends.
// The causes the rest of the service decides are typed (crawl.PageCause
// for a page, EndCause for a crawl) and worded here: Reason, Sentence.
//
// Every entry carries a key unique within its crawl (a retried activity
// writes nothing twice), and data with at least url and statusCode (0 when
// no HTTP response belongs to the entry).
package crawllog

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/hostbudget"
)

// Level is how much an entry matters to the crawl's owner.
type Level string

// The levels of an entry.
const (
	Info  Level = "info"
	Warn  Level = "warn"
	Error Level = "error"
)

// entry builds an entry of crawl c.
func entry(c *crawl.Crawl, key string, level Level, message, description string, data map[string]any) crawl.CrawlLog {
	return crawl.CrawlLog{CrawlID: c.ID, TeamID: c.TeamID, Key: key, Level: string(level),
		Message: message, Description: description, Data: data}
}

// crawlData is the data of an entry about the crawl as a whole: its first
// start URL, no status code, and kv.
func crawlData(c *crawl.Crawl, kv ...any) map[string]any {
	data := map[string]any{"url": c.StartURLs[0], "statusCode": 0}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i].(string)] = kv[i+1]
	}
	return data
}

// Started is a crawl's first entry: what it crawls and within which
// bounds (budget result pages, concurrency pages at a time).
func Started(c *crawl.Crawl, budget, concurrency int) crawl.CrawlLog {
	bounds := fmt.Sprintf("maxDepth %d, ", c.MaxDepth)
	if c.MaxDepth < 0 {
		bounds = "no depth limit, "
	}
	if c.MaxResults != nil {
		bounds += fmt.Sprintf("maxResults %d, ", *c.MaxResults)
	}
	if c.Unbounded() {
		bounds = fmt.Sprintf("no depth limit, up to %d pages, ", budget)
	}
	return entry(c, "start", Info, "Crawl started",
		fmt.Sprintf("Crawling %s (%sengine %s, %d pages at a time, timeout %ds).",
			startURLs(c.StartURLs), bounds, c.EngineType, concurrency, c.TimeoutSeconds),
		crawlData(c, "startUrls", c.StartURLs))
}

// startURLs lists a crawl's start URLs, the first ten of a longer list
// (a batch scrape may have a thousand) and how many more.
func startURLs(urls []string) string {
	if len(urls) <= 10 {
		return strings.Join(urls, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(urls[:10], ", "), len(urls)-10)
}

// EngineChosen says which engine fetches the crawl's pages, and why.
func EngineChosen(c *crawl.Crawl, engine string) crawl.CrawlLog {
	level, desc := Info, ""
	switch {
	case c.EngineType != crawl.EngineAuto:
		desc = fmt.Sprintf("Pages are fetched by the %s engine, as the crawl asks.", c.EngineType)
	case engine == crawl.EnginePlaywright:
		desc = fmt.Sprintf("The stack %q renders its pages with JavaScript: pages are rendered by the browser engine (playwright).", c.Stack)
	case c.Stack != "" && crawl.Stacks[c.Stack] == crawl.EnginePlaywright:
		level = Warn
		desc = fmt.Sprintf("The stack %q suggests the browser engine, which this server does not run; pages are fetched by the static engine (cheerio).", c.Stack)
	case c.Stack != "":
		desc = fmt.Sprintf("The stack %q is served as static HTML: pages are fetched by the static engine (cheerio).", c.Stack)
	default:
		desc = "engineType auto: pages are fetched by the static engine (cheerio), unless the start page turns out to need JavaScript."
	}
	return entry(c, "engine", level, "Engine chosen", desc, crawlData(c, "engine", engine))
}

// JavaScriptPage is a start page that needs JavaScript, and the sign.
type JavaScriptPage struct {
	URL  string
	Sign crawl.JavaScriptSign
}

// EngineSwitched says that the crawl goes on with the browser engine
// because start pages need JavaScript (in the order of their URLs).
func EngineSwitched(c *crawl.Crawl, pages []JavaScriptPage) crawl.CrawlLog {
	why := make([]string, len(pages))
	for i, p := range pages {
		why[i] = p.URL + ": " + JavaScript(p.Sign)
	}
	sort.Strings(why)
	return entry(c, "engine-switch", Info, "Engine switched",
		fmt.Sprintf("The start page needs JavaScript (%s): the crawl goes on with the browser engine (playwright).", strings.Join(why, "; ")),
		crawlData(c, "engine", crawl.EnginePlaywright))
}

// SitemapRead says what the crawl's sitemaps gave: the files read (found)
// and the pages queued from them; with none, the crawl follows links.
func SitemapRead(c *crawl.Crawl, found []string, pages int) crawl.CrawlLog {
	data := crawlData(c, "sitemaps", found, "pages", pages)
	switch {
	case pages == 0 && len(found) == 0:
		return entry(c, "sitemap", Warn, "No sitemap found",
			"No sitemap was found in robots.txt or at /sitemap.xml; the crawl follows links instead.", data)
	case pages == 0:
		return entry(c, "sitemap", Warn, "Sitemap lists no page in scope",
			fmt.Sprintf("The sitemaps (%s) list no page within the crawl's scope and path rules; the crawl follows links instead.", strings.Join(found, ", ")), data)
	}
	return entry(c, "sitemap", Info, "Sitemap read",
		fmt.Sprintf("Queued %d pages from %d sitemaps (%s).", pages, len(found), strings.Join(found, ", ")), data)
}

// Retried says that a fetch of page p failed for a passing reason
// (statusCode 0: no response) and that the page is fetched again.
func Retried(c *crawl.Crawl, p crawl.Page, statusCode int, cause crawl.PageCause, r crawl.Retry) crawl.CrawlLog {
	reason := Reason(cause)
	return entry(c, fmt.Sprintf("retry:%d:%d", p.ID, r.Attempt), Warn, "Page retried",
		fmt.Sprintf("Attempt %d of %d to fetch %s failed: %s. It is tried again in %s.", r.Attempt, r.Attempts, p.URL, reason, r.In),
		map[string]any{"url": p.URL, "statusCode": statusCode, "depth": p.Depth,
			"attempt": r.Attempt, "retryInSeconds": r.In.Seconds(), "error": reason})
}

// Replayed says that a fetch of page p went out times more times at once:
// the kept-alive connection it was sent on closed or reset before the
// server answered, and the client sent it again on a new one. Each is a
// failed attempt of the page's, though no wait came between them.
func Replayed(c *crawl.Crawl, p crawl.Page, times int) crawl.CrawlLog {
	attempt := p.Attempts + 1
	reason := "the connection closed or reset before the server answered"
	again := "it was sent again at once on a new connection"
	if times > 1 {
		again = fmt.Sprintf("it was sent again at once on a new connection, %d times", times)
	}
	return entry(c, fmt.Sprintf("replayed:%d:%d", p.ID, attempt), Warn, "Page retried",
		fmt.Sprintf("Attempt %d to fetch %s failed: %s; %s.", attempt, p.URL, reason, again),
		map[string]any{"url": p.URL, "statusCode": 0, "depth": p.Depth,
			"attempt": attempt, "retryInSeconds": 0, "error": reason, "times": times})
}

// HostThrottled says why the crawl's requests to host wait (w): it
// answered 429 or 503, and every crawl of it waits until w.Until (a
// Retry-After) or, with w.Until zero, goes at most w.Limit requests at
// once until the site recovers.
func HostThrottled(c *crawl.Crawl, w hostbudget.Wait) crawl.CrawlLog {
	host, until, why, limit := w.Host, w.Until, throttled(w.Cause), w.Limit
	if until.IsZero() {
		return entry(c, fmt.Sprintf("host-slowed:%s:%d:%d", host, w.Since.Unix(), limit), Warn, "Slowing down for the site",
			fmt.Sprintf("Requests to %s wait for their turn: %s. Every crawl of the site sends it at most %d requests at once for now; the pace comes back as it recovers.",
				host, why, limit),
			crawlData(c, "host", host, "limit", limit, "reason", why))
	}
	return entry(c, fmt.Sprintf("host-backoff:%s:%d", host, until.Unix()), Warn, "Waiting for the site",
		fmt.Sprintf("Requests to %s wait until %s: %s. Every crawl of the site waits with this one, and goes at a reduced pace for a while after.",
			host, until.UTC().Format(time.TimeOnly), why),
		crawlData(c, "host", host, "until", until.UTC().Format(time.RFC3339), "reason", why))
}

// SentToBrowser says that page p, fetched statically, needs JavaScript
// (sign) and is rendered in the browser instead, while the rest of the
// crawl stays static: for its content, or (SignScriptedLinks) for the
// links its scripts draw.
func SentToBrowser(c *crawl.Crawl, p crawl.Page, sign crawl.JavaScriptSign) crawl.CrawlLog {
	why := JavaScript(sign)
	desc := fmt.Sprintf("%s needs JavaScript (%s): it is rendered with the browser engine (playwright).", p.URL, why)
	if sign.Kind == crawl.SignScriptedLinks {
		desc = fmt.Sprintf("%s is rendered to find its links: %s. The pages they lead to are fetched statically when their HTML holds their content.", p.URL, why)
	}
	return entry(c, fmt.Sprintf("to-browser:%d", p.ID), Info, "Page sent to the browser", desc,
		map[string]any{"url": p.URL, "statusCode": 0, "depth": p.Depth, "engine": crawl.EnginePlaywright, "reason": why})
}

// PatternStopped says that the crawl no longer fetches addresses of a
// pattern (pattern, worded: `the query parameter "id"`) after duplicates
// pages under it repeated pages it has, and skipped the queued ones.
func PatternStopped(c *crawl.Crawl, key, pattern string, duplicates, skipped int) crawl.CrawlLog {
	return entry(c, "pattern:"+key, Info, "Address pattern skipped",
		fmt.Sprintf("%d pages whose addresses differ from pages of the crawl only by %s held the same content as those pages: "+
			"the crawl no longer fetches addresses with it (%d queued pages skipped).", duplicates, pattern, skipped),
		crawlData(c, "pattern", pattern, "duplicates", duplicates, "skipped", skipped))
}

// LimitReached says why a crawl stopped with notCrawled pages left in its
// frontier: its maxResults, or the server's cap of serverCap pages.
func LimitReached(c *crawl.Crawl, serverCap, notCrawled int) crawl.CrawlLog {
	budget := c.PageBudget(serverCap)
	data := crawlData(c, "notCrawled", notCrawled)
	if budget == serverCap && (c.MaxResults == nil || c.Unbounded() || *c.MaxResults > budget) {
		return entry(c, "limit", Warn, "Server page cap reached",
			fmt.Sprintf("The crawl stopped at this server's cap of %d pages per crawl (CRAWLER_MAX_PAGES_PER_CRAWL); %d discovered pages were not crawled.",
				budget, notCrawled), data)
	}
	return entry(c, "limit", Info, "maxResults reached",
		fmt.Sprintf("The crawl stopped at maxResults (%d pages); %d discovered pages were not crawled.", budget, notCrawled), data)
}

// throttled words what a throttled host answered (Status 0: a throttle
// recorded by a worker from before the status was kept).
func throttled(t hostbudget.Throttle) string {
	switch {
	case t.Status == 0:
		return "the site asked for fewer requests"
	case t.RetryAfter > 0:
		return fmt.Sprintf("the site answered %d with Retry-After %s", t.Status, t.RetryAfter.Round(time.Second))
	}
	return fmt.Sprintf("the site answered %d", t.Status)
}
