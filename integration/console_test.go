package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/durablecrawl/crawler/internal/testenv"
)

// consolePage opens a tab of a real Chromium on the console of the test
// API, and fails the test on any error the page's script throws and on
// any dialog it opens (a markdown that ran would open one).
func consolePage(t testing.TB) playwright.Page {
	t.Helper()
	chromium, driver, err := testenv.BrowserPaths()
	if err != nil {
		t.Fatal(err)
	}
	pw, err := playwright.Run(&playwright.RunOptions{DriverDirectory: driver, SkipInstallBrowsers: true})
	if err != nil {
		t.Fatalf("start the playwright driver (make test installs it): %v", err)
	}
	t.Cleanup(func() { _ = pw.Stop() })
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{ExecutablePath: playwright.String(chromium), Headless: playwright.Bool(true),
		Args: []string{"--no-sandbox"}})
	if err != nil {
		t.Fatalf("launch Chromium: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	page, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	page.SetDefaultTimeout(15000)
	page.OnPageError(func(err error) { t.Errorf("the console's script failed: %v", err) })
	page.OnDialog(func(d playwright.Dialog) {
		t.Errorf("the page opened a dialog: %q", d.Message())
		_ = d.Dismiss()
	})
	page.OnConsole(func(m playwright.ConsoleMessage) {
		// The browser's own lines about failed requests (a 4xx the test
		// asks for, an API it cuts) are not the console's errors.
		if m.Type() == "error" && !strings.HasPrefix(m.Text(), "Failed to load resource") {
			t.Errorf("console error: %s", m.Text())
		}
	})
	return page
}

// axeScan runs axe-core (pinned in tools/axe) on the page as it stands
// and fails the test on each serious or critical violation; with
// CRAWLER_CONSOLE_SCREENSHOTS set, it also saves the view there as
// view.png (docs/console.md shows them).
func axeScan(t *testing.T, page playwright.Page, view string) {
	t.Helper()
	path := os.Getenv("CRAWLER_AXE")
	if path == "" {
		t.Fatal("CRAWLER_AXE is not set: make test installs axe-core (ensure_axe in scripts/lib.sh)")
	}
	src, err := os.ReadFile(path)
	must(t, err, "read axe-core")
	if _, err := page.Evaluate(string(src)); err != nil {
		t.Fatalf("load axe-core into the %s view: %v", view, err)
	}
	found, err := page.Evaluate(`async () => {
		const r = await axe.run(document, { resultTypes: ["violations"] });
		return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
			.map((v) => v.id + " (" + v.impact + "): " + v.nodes.map((n) => n.target.join(" ")).join(", "));
	}`)
	must(t, err, "run axe-core")
	if list, _ := found.([]any); len(list) > 0 {
		t.Errorf("the %s view has %d serious or critical accessibility violations: %v", view, len(list), list)
	}
	if dir := os.Getenv("CRAWLER_CONSOLE_SCREENSHOTS"); dir != "" {
		_, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, view+".png")), FullPage: playwright.Bool(true)})
		must(t, err, "screenshot")
	}
}

// must fails the test on err.
func must(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestConsole drives the web console in Chromium as a person would: a
// wrong key is refused, the right one shows its team; a crawl's form
// shows the API's 400 beside its field, then starts a crawl of a local
// site (recorded with origin "web") whose progress is watched to its end;
// its pages' markdown is shown (a hostile page's script and javascript:
// link stay text), and its log read. The page is served with a
// Content-Security-Policy that forbids inline script.
func TestConsole(t *testing.T) {
	t.Parallel()
	// Each page's own (deduplication keeps it): a script written as text,
	// and a link to javascript:.
	const hostile = "<p>Page %d says: run &lt;script&gt;alert('markdown %d')&lt;/script&gt; at your peril.</p><p>Page %d has a <a href=\"javascript:alert('link')\">bad link</a> here.</p>"
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); r.URL.Path != "/" && (err != nil || n < 0 || n > 4) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Console page %d</title></head><body><nav><a href="/">Home</a> <a href="/p/1">One</a> <a href="/p/2">Two</a> <a href="/p/3">Three</a> <a href="/p/4">Four</a></nav>`+
			`<main><h1>Console page %d</h1><p>The lock keeper opens the gates at dawn and closes them when the last barge of page %d has passed.</p>`+hostile+`</main></body></html>`, n, n, n, n, n, n)
	}))
	t.Cleanup(site.Close)

	res, err := http.Get(env.api + "/console/")
	must(t, err, "GET /console/")
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("the console's Content-Security-Policy does not forbid inline script: %q", csp)
	}

	page := consolePage(t)
	must(t, page.SetViewportSize(1200, 800), "the window's size")
	_, err = page.Goto(env.api + "/console/")
	must(t, err, "open the console")
	must(t, page.Locator("#key").WaitFor(), "the sign-in form")
	axeScan(t, page, "sign-in")
	must(t, page.Locator("#key").Fill("ck_wrong"), "type a wrong key")
	must(t, page.Locator("button[type=submit]").Click(), "sign in")
	must(t, page.GetByText("This key was not accepted").WaitFor(), "the wrong key's notice")

	must(t, page.Locator("#key").Fill(env.keyA), "type the key")
	must(t, page.Locator("button[type=submit]").Click(), "sign in")
	must(t, page.GetByText("Team team-a").WaitFor(), "the key's team")
	must(t, page.Locator("h1", playwright.PageLocatorOptions{HasText: "Crawls"}).WaitFor(), "the crawls")
	axeScan(t, page, "crawls")

	// The form: a limit out of range is refused beside its field.
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "New crawl"}).Click(), "open the form")
	must(t, page.Locator("#f-startUrl").Fill(site.URL+"/"), "start URL")
	must(t, page.Locator("#f-maxResults").Fill("0"), "limit")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Start the crawl"}).Click(), "submit")
	must(t, page.Locator("#err-maxResults").Filter(playwright.LocatorFilterOptions{HasText: "maxResults"}).Or(
		page.Locator("#err-maxResults").Filter(playwright.LocatorFilterOptions{HasText: "1"})).WaitFor(), "the 400 beside maxResults")
	msg, _ := page.Locator("#err-maxResults").TextContent()
	if strings.TrimSpace(msg) == "" {
		t.Fatal("no message beside maxResults")
	}
	axeScan(t, page, "new-crawl")

	must(t, page.Locator("#f-maxResults").Fill("5"), "limit")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Start the crawl"}).Click(), "submit")
	must(t, page.Locator("#crawl-status").WaitFor(), "the crawl's view")
	must(t, page.Locator("#crawl-status", playwright.PageLocatorOptions{HasText: "succeeded"}).WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(90000)}),
		"the crawl succeeds, watched without reloading")
	id := strings.TrimPrefix(strings.Split(page.URL(), "#/crawls/")[1], "/")
	var c crawlObj
	call(t, "GET", env.api+"/crawls/"+id, env.keyA, nil, &c)
	if c.Origin != "web" {
		t.Errorf("a crawl started in the console has origin %q, want web", c.Origin)
	}
	stored, _ := page.Locator(`[data-figure="stored"] b`).TextContent()
	if stored != "5" {
		t.Errorf("the view shows %q pages stored, want 5", stored)
	}
	axeScan(t, page, "crawl")

	if href, _ := page.Locator("#temporal-link").GetAttribute("href"); href != consoleTemporalUI+"/namespaces/default/workflows/crawl-"+id {
		t.Errorf("the link to the crawl's workflow is %q", href)
	}

	// The pages, searched by URL; a page's markdown rendered and raw, and
	// its own log entries.
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Pages", Exact: playwright.Bool(true)}).Click(), "open the pages")
	must(t, page.Locator("#page-search").Fill("/p/3"), "search")
	must(t, page.Locator("#page-search").Press("Enter"), "search")
	must(t, page.GetByText("(1 pages)").WaitFor(), "one page found")
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Console page 3"}).Click(), "open the page")
	must(t, page.Locator("#rendered p", playwright.PageLocatorOptions{HasText: "last barge of page 3"}).WaitFor(), "the rendered markdown")
	must(t, page.Locator("#rendered p", playwright.PageLocatorOptions{HasText: "<script>alert('markdown 3')</script>"}).WaitFor(), "the script shown as text")
	if n, _ := page.Locator("#rendered script, #rendered a[href^='javascript'], #rendered img").Count(); n != 0 {
		t.Errorf("a page's markdown made %d script elements, pictures or javascript: links", n)
	}
	// The renderer, on markdown no converter writes but a page could.
	made, err := page.Evaluate(`async () => {
		const { renderMarkdown } = await import("/console/markdown.js");
		const box = document.createElement("div");
		box.append(...renderMarkdown([
			"<script>alert('raw')</script>", "<img src=x onerror=alert('img')>",
			"[click](javascript:alert('link'))", "[data](data:text/html,<script>alert(1)</script>)", "![pic](javascript:alert('pic'))",
			"[fine](https://example.com/) and [relative](/docs/)", "<svg onload=alert('svg')></svg>",
		].join("\n\n")));
		return { bad: box.querySelectorAll("script, img, svg, iframe, [onerror], [onload], a[href^='javascript'], a[href^='data']").length,
			links: [...box.querySelectorAll("a")].map((a) => a.getAttribute("href")), text: box.textContent };
	}`)
	must(t, err, "render hostile markdown")
	if m, _ := made.(map[string]any); fmt.Sprint(m["bad"]) != "0" || !strings.Contains(fmt.Sprint(m["text"]), "<script>alert('raw')</script>") ||
		fmt.Sprint(m["links"]) != "[https://example.com/ /docs/]" {
		t.Errorf("hostile markdown rendered as %v", m)
	}
	must(t, page.Locator("td", playwright.PageLocatorOptions{HasText: "Page crawled"}).First().WaitFor(), "the page's log entries")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Markdown"}).Click(), "the raw markdown")
	raw, _ := page.Locator("#raw").TextContent()
	if !strings.Contains(raw, "# Console page 3") {
		t.Errorf("the raw markdown is not the page's: %q", raw)
	}
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Rendered"}).Click(), "the rendered markdown again")
	axeScan(t, page, "page")

	// The crawl's log, filtered by level on the server.
	_, err = page.Goto(env.api + "/console/#/crawls/" + id + "/log")
	must(t, err, "open the log")
	must(t, page.Locator("td", playwright.PageLocatorOptions{HasText: "Page crawled"}).First().WaitFor(), "the log's entries")
	_, err = page.Locator("#level").SelectOption(playwright.SelectOptionValues{Values: &[]string{"error"}})
	must(t, err, "pick a level")
	must(t, page.GetByText("No entries.").WaitFor(), "no errors in a clean crawl")
	_, err = page.Locator("#level").SelectOption(playwright.SelectOptionValues{Values: &[]string{"info"}})
	must(t, err, "pick a level")
	must(t, page.Locator("td", playwright.PageLocatorOptions{HasText: "Page crawled"}).First().WaitFor(), "the info entries")
	axeScan(t, page, "log")

	// A one-page scrape and a map, answered on the page.
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Scrape"}).Click(), "open the scrape form")
	must(t, page.Locator("#one-url").Fill(site.URL+"/p/2"), "the page's URL")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Scrape", Exact: playwright.Bool(true)}).Click(), "scrape")
	must(t, page.Locator("#scraped p", playwright.PageLocatorOptions{HasText: "last barge of page 2"}).WaitFor(), "the scraped markdown")
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Map"}).Click(), "open the map form")
	must(t, page.Locator("#one-url").Fill(site.URL+"/"), "the site's URL")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Map", Exact: playwright.Bool(true)}).Click(), "map")
	must(t, page.Locator("#mapped li", playwright.PageLocatorOptions{HasText: "/p/4"}).WaitFor(), "the mapped URLs")
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Schedules"}).Click(), "open the schedules")
	must(t, page.Locator("h1", playwright.PageLocatorOptions{HasText: "Schedules"}).WaitFor(), "the schedules")
	axeScan(t, page, "schedules")
	// Usage: this month's pages against no quota, and the days by key.
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Usage"}).Click(), "open the usage")
	must(t, page.Locator("#usage dd", playwright.PageLocatorOptions{HasText: "no quota, no bound"}).First().WaitFor(), "the month's usage")
	must(t, page.Locator("td", playwright.PageLocatorOptions{HasText: time.Now().UTC().Format(time.DateOnly)}).First().WaitFor(), "today's usage by key")
	axeScan(t, page, "usage")
	time.Sleep(100 * time.Millisecond) // let a late script error surface before the tab closes
}

// TestConsoleSteersAndBadMoments: the console used from the keyboard
// alone to sign in and start a crawl; a slow crawl paused, resumed, given
// a new limit and an exclusion, and aborted from its view, each with the
// API's answer; and the bad moments: a crawl that does not exist, an API
// that cannot be reached, a 429, and a page of 10 MB of markdown.
func TestConsoleSteersAndBadMoments(t *testing.T) {
	t.Parallel()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/s/%d", &n); r.URL.Path != "/" && err != nil {
			http.NotFound(w, r)
			return
		}
		time.Sleep(500 * time.Millisecond) // 30 pages take 15 s or more: steering ends before the crawl does
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Slow page %d</title></head><body><main><h1>Slow page %d</h1><p>The ferry waits for the tide before it leaves the harbour for the island.</p>`, n, n)
		for i := 3*n + 1; i <= 3*n+3; i++ {
			fmt.Fprintf(w, `<a href="/s/%d">next %d</a> `, i, i)
		}
		fmt.Fprint(w, `</main></body></html>`)
	}))
	t.Cleanup(slow.Close)
	page := consolePage(t)

	// From the keyboard: the key field has the focus, Enter signs in; Tab
	// reaches the form's first fields, Enter starts the crawl.
	_, err := page.Goto(env.api + "/console/")
	must(t, err, "open the console")
	must(t, page.Locator("#key").WaitFor(), "the sign-in form")
	must(t, page.Keyboard().Type(env.keyA), "type the key")
	must(t, page.Keyboard().Press("Enter"), "sign in")
	must(t, page.GetByText("Team team-a").WaitFor(), "signed in")
	_, err = page.Goto(env.api + "/console/#/new")
	must(t, err, "open the form")
	must(t, page.Locator("#f-startUrl").WaitFor(), "the form")
	// A view takes the focus when it opens; Tab goes to its first field.
	_, err = page.WaitForFunction(`document.activeElement && document.activeElement.id === "view"`, nil)
	must(t, err, "the form's view takes the focus")
	must(t, page.Keyboard().Press("Tab"), "Tab")
	if id, _ := page.Evaluate("document.activeElement && document.activeElement.id"); id != "f-startUrl" {
		t.Fatalf("Tab from the view went to %v, want the start URL field", id)
	}
	must(t, page.Keyboard().Type(slow.URL+"/s/0"), "type the start URL")
	must(t, page.Keyboard().Press("Tab"), "Tab to the limit")
	if id, _ := page.Evaluate("document.activeElement.id"); id != "f-maxResults" {
		t.Fatalf("Tab after the start URL went to %v, want the page limit", id)
	}
	must(t, page.Keyboard().Type("40"), "type the limit")
	// One page at a time, so that the crawl runs while it is steered.
	must(t, page.Locator("#f-maxConcurrentPages").Fill("1"), "concurrency")
	must(t, page.Locator("#f-maxResults").Focus(), "back to the limit")
	must(t, page.Keyboard().Press("Enter"), "start the crawl")
	must(t, page.Locator("#crawl-status").WaitFor(), "the crawl's view")
	id := strings.TrimPrefix(strings.Split(page.URL(), "#/crawls/")[1], "/")

	// Progress follows the API: each time the API's count of stored pages
	// grows, the view shows it within a poll or two.
	var lag time.Duration
	for range 3 {
		var c crawlObj
		call(t, "GET", env.api+"/crawls/"+id, env.keyA, nil, &c)
		before := c.Progress.Stored
		deadline := time.Now().Add(20 * time.Second)
		for c.Progress.Stored == before && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			call(t, "GET", env.api+"/crawls/"+id, env.keyA, nil, &c)
		}
		stored := time.Now()
		for time.Now().Before(deadline) {
			got, _ := page.Locator(`[data-figure="stored"] b`).TextContent()
			if n, err := strconv.Atoi(got); err == nil && n >= c.Progress.Stored {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		lag = max(lag, time.Since(stored))
	}
	t.Logf("progress shown in the view at most %v after the API counted it", lag.Round(10*time.Millisecond))
	if lag > 10*time.Second {
		t.Errorf("the view showed the pages stored %v after the API counted them", lag)
	}

	// Steered from its view: each answer shown.
	answer := page.Locator("[role=status]")
	must(t, page.Locator("#pause").Click(), "pause")
	must(t, page.GetByText("(paused)").WaitFor(), "shown paused")
	must(t, page.Locator("#resume").Click(), "resume")
	must(t, answer.Filter(playwright.LocatorFilterOptions{HasText: "Resume"}).WaitFor(), "the resume's answer")
	must(t, page.Locator("#new-limit").Fill("0"), "a limit out of range")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Apply"}).Click(), "apply")
	if err := page.Locator("[role=alert]").Filter(playwright.LocatorFilterOptions{HasText: "maxResults"}).WaitFor(); err != nil {
		texts, _ := page.Locator("main").AllTextContents()
		t.Fatalf("the 400 naming maxResults: %v; the view says %q", err, texts)
	}
	must(t, page.Locator("#new-limit").Fill("30"), "a new limit")
	must(t, page.Locator("#new-exclusion").Fill("/s/2*"), "an exclusion")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Apply"}).Click(), "apply")
	must(t, answer.Filter(playwright.LocatorFilterOptions{HasText: "Change"}).WaitFor(), "the change's answer")
	must(t, page.Locator("#abort").Click(), "abort")
	must(t, page.Locator("#crawl-status", playwright.PageLocatorOptions{HasText: "aborted"}).WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(60000)}), "aborted")
	var c crawlObj
	call(t, "GET", env.api+"/crawls/"+id, env.keyA, nil, &c)
	if c.MaxResults == nil || *c.MaxResults != 30 || !slices.Contains(c.ExcludePaths, "/s/2*") || c.Status != "aborted" {
		t.Errorf("the crawl after steering: limit %v, exclusions %v, status %s", c.MaxResults, c.ExcludePaths, c.Status)
	}

	// Bad moments.
	_, err = page.Goto(env.api + "/console/#/crawls/00000000-0000-4000-8000-000000000000")
	must(t, err, "a crawl that does not exist")
	must(t, page.GetByText("Not found").WaitFor(), "its notice")
	must(t, page.Route("**/crawls?*", func(r playwright.Route) { _ = r.Abort() }), "cut the API")
	_, err = page.Goto(env.api + "/console/#/crawls?page=2")
	must(t, err, "the list without an API")
	must(t, page.GetByText("The API cannot be reached.").WaitFor(), "its notice")
	must(t, page.Unroute("**/crawls?*"), "restore the API")
	must(t, page.Route("**/crawls", func(r playwright.Route) {
		if r.Request().Method() != "POST" {
			_ = r.Continue()
			return
		}
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(429), ContentType: playwright.String("application/json"),
			Headers: map[string]string{"Retry-After": "7"}, Body: `{"error":{"code":"rate_limited","message":"too many crawls"}}`})
	}), "a rate limit")
	_, err = page.Goto(env.api + "/console/#/new")
	must(t, err, "the form")
	must(t, page.Locator("#f-startUrl").Fill(slow.URL+"/"), "start URL")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Start the crawl"}).Click(), "submit")
	must(t, page.GetByText("wait 7 seconds").WaitFor(), "the 429's notice")

	// 10 MB of markdown: the rendered view stops at its cap and says so.
	took, err := page.Evaluate(`async () => {
		const { renderMarkdown, maxRendered } = await import("/console/markdown.js");
		const para = "The ferry waits for the [tide](https://example.com/tide) before it leaves, **always**.\n\n";
		const text = "# Long\n\n" + para.repeat(Math.ceil(10 * 1024 * 1024 / para.length));
		const start = performance.now();
		const nodes = renderMarkdown(text);
		const ms = performance.now() - start;
		const last = nodes[nodes.length - 1].textContent;
		return { ms, nodes: nodes.length, capped: last.includes("more characters"), cap: maxRendered, length: text.length };
	}`)
	must(t, err, "render 10 MB of markdown")
	r, _ := took.(map[string]any)
	t.Logf("10 MB of markdown: %v", r)
	if capped, _ := r["capped"].(bool); !capped {
		t.Errorf("the rendered view of 10 MB did not stop at its cap: %v", r)
	}
	if n, _ := r["nodes"].(int); n > 5000 {
		t.Errorf("the rendered view of 10 MB made %d blocks", n)
	}
}

// TestConsoleOnAPhone: on a phone's screen (390 px wide) no view of the
// console is wider than the screen; and a crawl view's "failed" figure
// counts the entries its "Errors" link shows (a 404 is both).
func TestConsoleOnAPhone(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && r.URL.Path != "/a-page-with-a-rather-long-address-that-does-not-break/anywhere/at-all" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Phone page</title></head><body><main><h1>Phone page</h1>
<p>The ferry leaves the harbour at seven and comes back before the tide turns in the afternoon.</p>
<p><a href="/a-page-with-a-rather-long-address-that-does-not-break/anywhere/at-all">A long address</a>, <a href="/gone">a page that is gone</a> and <a href="/also-gone">another</a>.</p>
<pre>a_line_of_code_that_is_much_wider_than_any_phone_screen_could_ever_show_in_one_go(with, arguments)</pre>
<table><tr><th>Column one</th><th>Column two</th><th>Column three</th><th>Column four</th></tr><tr><td>1</td><td>2</td><td>3</td><td>4</td></tr></table></main></body></html>`)
	}))
	t.Cleanup(site.Close)
	c := create(t, env.api, env.keyA, map[string]any{"startUrl": site.URL + "/", "maxResults": 10})
	c = waitStatus(t, env.api, env.keyA, c.ID, 90*time.Second, "succeeded")

	page := consolePage(t)
	must(t, page.SetViewportSize(390, 844), "a phone's screen")
	_, err := page.Goto(env.api + "/console/")
	must(t, err, "open the console")
	must(t, page.Locator("#key").Fill(env.keyA), "type the key")
	must(t, page.Locator("button[type=submit]").Click(), "sign in")
	must(t, page.Locator("h1", playwright.PageLocatorOptions{HasText: "Crawls"}).WaitFor(), "the crawls")
	fits := func(view string) {
		t.Helper()
		got, err := page.Evaluate(`() => {
			const w = document.documentElement.clientWidth;
			const wide = [...document.querySelectorAll("body *")].filter((e) => {
				const r = e.getBoundingClientRect();
				if (r.right <= w + 1) return false;
				for (let p = e.parentElement; p; p = p.parentElement) {
					const o = getComputedStyle(p).overflowX;
					if (o === "auto" || o === "scroll" || o === "hidden") return false;
				}
				return true;
			}).slice(0, 3).map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : "") + " " + Math.round(e.getBoundingClientRect().right) + "px");
			return { scroll: document.documentElement.scrollWidth, client: w, wide };
		}`)
		must(t, err, "measure "+view)
		m := got.(map[string]any)
		if fmt.Sprint(m["scroll"]) != fmt.Sprint(m["client"]) || len(m["wide"].([]any)) > 0 {
			t.Errorf("%s: the console is %v px wide on a %v px screen; wider than the screen: %v", view, m["scroll"], m["client"], m["wide"])
		}
	}
	fits("crawls")
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "New crawl"}).Click(), "open the form")
	must(t, page.Locator("#f-startUrl").WaitFor(), "the form")
	fits("new crawl")

	_, err = page.Goto(env.api + "/console/#/crawls/" + c.ID)
	must(t, err, "open the crawl")
	must(t, page.Locator("#crawl-status", playwright.PageLocatorOptions{HasText: "succeeded"}).WaitFor(), "the crawl's view")
	fits("crawl")
	failed, _ := page.Locator(`[data-figure="failed"] b`).TextContent()
	if failed != "2" {
		t.Errorf("the view counts %q pages failed, want 2 (two 404s)", failed)
	}
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Errors"}).Click(), "open the errors")
	must(t, page.Locator("td", playwright.PageLocatorOptions{HasText: "Page failed"}).First().WaitFor(), "the failed pages' entries")
	if n, _ := page.Locator("tbody tr").Count(); fmt.Sprint(n) != failed {
		t.Errorf("the Errors link shows %d entries, the view counts %s pages failed", n, failed)
	}
	fits("errors")
	_, err = page.Goto(env.api + "/console/#/crawls/" + c.ID + "/pages")
	must(t, err, "open the pages")
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Phone page"}).First().Click(), "open the page")
	must(t, page.Locator("#rendered p", playwright.PageLocatorOptions{HasText: "The ferry leaves"}).WaitFor(), "the rendered markdown")
	fits("page")
	for _, view := range []string{"scrape", "map", "schedules", "usage"} {
		_, err = page.Goto(env.api + "/console/#/" + view)
		must(t, err, "open "+view)
		must(t, page.Locator("h1").First().WaitFor(), view)
		time.Sleep(300 * time.Millisecond)
		fits(view)
	}
}
