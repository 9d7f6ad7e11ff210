// Package mcpserver is the service's own Model Context Protocol server:
// the tools an agent needs to scrape, map and crawl through the service
// (scrape, map, start a crawl, read its status and progress, read its
// pages' markdown a page at a time, cancel it), over the protocol's
// streamable HTTP transport, with the caller's API key as its bearer
// token. Crawls started here are durable workflows like any other: an
// agent may leave one running and come back to it by its ID.
//
// Each tool calls the service's public HTTP API with the caller's key
// (package apiclient), so that it answers exactly what the key may read,
// with the API's own validation, limits and errors.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/durablecrawl/crawler/apiclient"
)

// Version is the server's version as it introduces itself.
const Version = "1"

// Options configure the handler.
type Options struct {
	// Verify checks an API key; an error refuses the request (401).
	Verify func(ctx context.Context, key string) error
	// APIBase is the address the tools reach the API at, for a request
	// made to the handler (normally the API's own address).
	APIBase func(r *http.Request) string
	// HTTP is the client the tools call the API with; nil is one whose
	// timeout outlasts a scrape's longest (5 minutes).
	HTTP *http.Client
}

// Handler serves the MCP endpoint: stateless streamable HTTP answered
// with JSON, behind a bearer-token check of the API key.
func Handler(o Options) http.Handler {
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 6 * time.Minute}
	}
	server := newServer(o)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	verify := func(ctx context.Context, key string, r *http.Request) (*auth.TokenInfo, error) {
		if err := o.Verify(ctx, key); err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		// The key is checked on each request: the token has no lifetime
		// of its own past this one.
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour), Extra: map[string]any{apiKeyExtra: key}}, nil
	}
	withBase := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), baseKey{}, o.APIBase(r))))
	})
	return auth.RequireBearerToken(verify, nil)(withBase)
}

// apiKeyExtra is where a request's verified API key is kept in its token
// information.
const apiKeyExtra = "apiKey"

// baseKey holds the API's address in a request's context.
type baseKey struct{}

// tools makes the API client of a tool call: the caller's key, the API's
// address.
type tools struct{ http *http.Client }

func (t tools) client(ctx context.Context, req *mcp.CallToolRequest) (*apiclient.Client, error) {
	var key string
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		key, _ = req.Extra.TokenInfo.Extra[apiKeyExtra].(string)
	}
	base, _ := ctx.Value(baseKey{}).(string)
	switch {
	case key == "":
		return nil, errors.New("the request carries no verified API key")
	case base == "":
		return nil, errors.New("the server has no address to reach its API at (set CRAWLER_HTTP_ADDR)")
	}
	return &apiclient.Client{BaseURL: base, Key: key, HTTP: t.http}, nil
}

func newServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "durable-crawler", Title: "Durable crawl service", Version: Version},
		&mcp.ServerOptions{Instructions: instructions})
	t := tools{http: o.HTTP}
	mcp.AddTool(s, &mcp.Tool{Name: "scrape", Description: "Scrape one web page and return its main content as markdown " +
		"(or all of it, with onlyMainContent false). maxAge (milliseconds) answers from a copy the team stored within that age, without fetching."}, t.scrape)
	mcp.AddTool(s, &mcp.Tool{Name: "map", Description: "List a site's URLs (from its sitemaps and links), optionally only those holding the words of search."}, t.mapSite)
	mcp.AddTool(s, &mcp.Tool{Name: "search", Description: "Search the web through the deployment's search backend: results (url, title, description) of web pages, news and images; " +
		"with scrape, each web and news result's page is read too and its markdown answered with it."}, t.search)
	mcp.AddTool(s, &mcp.Tool{Name: "extract", Description: "Extract structured data from web pages with the deployment's LLM: the pages at urls " +
		"(a URL ending in /* reads that part of its site), or those a web search for the prompt finds; answered when the extraction ends, " +
		"with the pages each field came from. The extraction is a durable crawl of its own."}, t.extract)
	mcp.AddTool(s, &mcp.Tool{Name: "parse", Description: "Read a file (HTML, text, PDF, .docx, .odt, .xlsx) into markdown: give its name and its content, " +
		"as text or base64. Nothing of it is kept."}, t.parse)
	mcp.AddTool(s, &mcp.Tool{Name: "start_crawl", Description: "Start a durable crawl of a site and return its ID at once. " +
		"The crawl runs on its own, survives restarts, and can be left and come back to: read it with crawl_status and crawl_pages, stop it with cancel_crawl. " +
		"Options are the service's crawl request fields (maxResults, maxDepth, includeOnlyPaths, excludePaths, entireWebsite, useSitemap, engineType, …)."}, t.startCrawl)
	mcp.AddTool(s, &mcp.Tool{Name: "crawl_status", Description: "A crawl's status (running, succeeded, failed, aborted, timed_out, error), pages stored, and progress (queued, in progress, failed, skipped)."}, t.crawlStatus)
	mcp.AddTool(s, &mcp.Tool{Name: "crawl_pages", Description: "A page of a crawl's stored pages with their markdown, in the order they were stored; page counts from 1. Readable while the crawl runs."}, t.crawlPages)
	mcp.AddTool(s, &mcp.Tool{Name: "cancel_crawl", Description: "Cancel a running crawl; the pages it stored are kept."}, t.cancelCrawl)
	mcp.AddTool(s, &mcp.Tool{Name: "list_crawls", Description: "The team's crawls, newest first (status filters: running, succeeded, failed, aborted, timed_out, error)."}, t.listCrawls)
	return s
}

// instructions tell an agent how the tools go together.
const instructions = "Scrape single pages with scrape, find pages on the web with search, list a site's URLs with map, " +
	"draw structured data from pages with extract, and read a file with parse. For many pages, start_crawl returns a crawl ID at once; " +
	"the crawl is durable: poll crawl_status, read results with crawl_pages (paged), and cancel_crawl when enough is stored. " +
	"A crawl keeps running if you disconnect."

// ScrapeInput is the scrape tool's arguments.
type ScrapeInput struct {
	URL             string   `json:"url" jsonschema:"the page to scrape (http or https)"`
	OnlyMainContent *bool    `json:"onlyMainContent,omitempty" jsonschema:"the main content only (default true)"`
	Formats         []string `json:"formats,omitempty" jsonschema:"besides markdown: html, rawHtml, links, images"`
	WaitFor         int      `json:"waitFor,omitempty" jsonschema:"milliseconds to wait, in a browser, before reading the page"`
	MaxAge          int64    `json:"maxAge,omitempty" jsonschema:"answer from a copy stored within this many milliseconds, if there is one"`
}

// ScrapeOutput is what a scrape answers.
type ScrapeOutput struct {
	URL        string         `json:"url"`
	Title      string         `json:"title,omitempty"`
	StatusCode int            `json:"statusCode,omitempty"`
	Markdown   string         `json:"markdown"`
	Document   map[string]any `json:"document"`
}

func (t tools) scrape(ctx context.Context, req *mcp.CallToolRequest, in ScrapeInput) (*mcp.CallToolResult, ScrapeOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, ScrapeOutput{}, err
	}
	formats := append([]string{"markdown"}, in.Formats...)
	body := map[string]any{"url": in.URL, "formats": formats}
	if in.OnlyMainContent != nil {
		body["onlyMainContent"] = *in.OnlyMainContent
	}
	if in.WaitFor > 0 {
		body["waitFor"] = in.WaitFor
	}
	if in.MaxAge > 0 {
		body["maxAge"] = in.MaxAge
	}
	raw, _ := json.Marshal(body)
	doc, err := c.Scrape(ctx, raw)
	if err != nil {
		return nil, ScrapeOutput{}, err
	}
	var out ScrapeOutput
	if err := json.Unmarshal(doc, &out.Document); err != nil {
		return nil, ScrapeOutput{}, err
	}
	out.Markdown, _ = out.Document["markdown"].(string)
	if m, ok := out.Document["metadata"].(map[string]any); ok {
		out.URL, _ = m["sourceURL"].(string)
		out.Title, _ = m["title"].(string)
		if code, ok := m["statusCode"].(float64); ok {
			out.StatusCode = int(code)
		}
	}
	return textResult(out.Markdown), out, nil
}

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query          string   `json:"query" jsonschema:"the words to search for"`
	Limit          int      `json:"limit,omitempty" jsonschema:"results of each source (1 to 100, default 5)"`
	Sources        []string `json:"sources,omitempty" jsonschema:"web (the default), news, images"`
	TBS            string   `json:"tbs,omitempty" jsonschema:"a time range: qdr:h, qdr:d, qdr:w, qdr:m, qdr:y"`
	IncludeDomains []string `json:"includeDomains,omitempty" jsonschema:"only results on these hosts"`
	ExcludeDomains []string `json:"excludeDomains,omitempty" jsonschema:"no results on these hosts"`
	Scrape         bool     `json:"scrape,omitempty" jsonschema:"read each web and news result's page and answer its markdown"`
}

// SearchOutput is what a search answers: results by source.
type SearchOutput struct {
	Results map[string][]map[string]any `json:"results"`
	Warning string                      `json:"warning,omitempty"`
}

func (t tools) search(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	body := map[string]any{"query": in.Query, "limit": 5}
	if in.Limit > 0 {
		body["limit"] = in.Limit
	}
	for k, v := range map[string][]string{"sources": in.Sources, "includeDomains": in.IncludeDomains, "excludeDomains": in.ExcludeDomains} {
		if len(v) > 0 {
			body[k] = v
		}
	}
	if in.TBS != "" {
		body["tbs"] = in.TBS
	}
	if in.Scrape {
		body["scrapeOptions"] = map[string]any{"formats": []string{"markdown"}}
	}
	raw, _ := json.Marshal(body)
	results, warning, err := c.Search(ctx, raw)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	var text strings.Builder
	for _, src := range []string{"web", "news", "images"} {
		for _, r := range results[src] {
			title, _ := r["title"].(string)
			u, _ := r["url"].(string)
			fmt.Fprintf(&text, "[%s] %s\n%s\n", src, title, u)
			if d, _ := r["description"].(string); d != "" {
				fmt.Fprintf(&text, "%s\n", d)
			}
			if md, _ := r["markdown"].(string); md != "" {
				fmt.Fprintf(&text, "\n%s\n", md)
			}
			text.WriteString("\n")
		}
	}
	if warning != "" {
		fmt.Fprintf(&text, "(%s)\n", warning)
	}
	return textResult(text.String()), SearchOutput{Results: results, Warning: warning}, nil
}

// ExtractInput is the extract tool's arguments.
type ExtractInput struct {
	URLs            []string        `json:"urls,omitempty" jsonschema:"the pages to read; a URL ending in /* reads that part of its site"`
	Prompt          string          `json:"prompt" jsonschema:"what to extract, in words"`
	Schema          json.RawMessage `json:"schema,omitempty" jsonschema:"the JSON Schema the answer must validate against"`
	EnableWebSearch bool            `json:"enableWebSearch,omitempty" jsonschema:"also read the pages a web search for the prompt finds"`
	Limit           int             `json:"limit,omitempty" jsonschema:"the most pages a wildcard's crawl reads (default 100)"`
}

// ExtractOutput is what an extraction answered; an answer that is not
// an object is Data's value.
type ExtractOutput struct {
	ID      string              `json:"id"`
	Status  string              `json:"status"`
	Data    map[string]any      `json:"data,omitempty"`
	Sources map[string][]string `json:"sources,omitempty"`
	Warning string              `json:"warning,omitempty"`
}

// extractWait bounds how long the extract tool waits for its extraction;
// extractPoll is how often it looks.
const (
	extractWait = 10 * time.Minute
	extractPoll = time.Second
)

func (t tools) extract(ctx context.Context, req *mcp.CallToolRequest, in ExtractInput) (*mcp.CallToolResult, ExtractOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, ExtractOutput{}, err
	}
	body := map[string]any{"prompt": in.Prompt, "showSources": true}
	if len(in.URLs) > 0 {
		body["urls"] = in.URLs
	}
	if len(in.Schema) > 0 {
		body["schema"] = in.Schema
	}
	if in.EnableWebSearch {
		body["enableWebSearch"] = true
	}
	if in.Limit > 0 {
		body["limit"] = in.Limit
	}
	raw, _ := json.Marshal(body)
	id, err := c.Extract(ctx, raw)
	if err != nil {
		return nil, ExtractOutput{}, err
	}
	deadline := time.Now().Add(extractWait)
	for {
		st, err := c.ExtractStatusOf(ctx, id)
		if err != nil {
			return nil, ExtractOutput{}, err
		}
		if st.Status != "processing" || time.Now().After(deadline) {
			out := ExtractOutput{ID: id, Status: st.Status, Sources: st.Sources, Warning: st.Warning}
			if len(st.Data) > 0 && json.Unmarshal(st.Data, &out.Data) != nil {
				var v any
				_ = json.Unmarshal(st.Data, &v)
				out.Data = map[string]any{"value": v}
			}
			if st.Status == "failed" {
				return nil, out, fmt.Errorf("the extraction %s failed: %s", id, st.Error)
			}
			text, _ := json.MarshalIndent(out, "", "  ")
			return textResult(string(text)), out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ExtractOutput{}, ctx.Err()
		case <-time.After(extractPoll):
		}
	}
}

// ParseInput is the parse tool's arguments.
type ParseInput struct {
	Filename      string   `json:"filename" jsonschema:"the file's name, with its extension (report.docx)"`
	Content       string   `json:"content,omitempty" jsonschema:"the file's content, when it is text (HTML, markdown, plain text)"`
	ContentBase64 string   `json:"contentBase64,omitempty" jsonschema:"the file's content in base64 (PDF, .docx, .odt, .xlsx)"`
	Formats       []string `json:"formats,omitempty" jsonschema:"besides markdown: html, links, images"`
}

// ParseOutput is a parsed file.
type ParseOutput struct {
	Title    string         `json:"title,omitempty"`
	Markdown string         `json:"markdown"`
	Document map[string]any `json:"document"`
}

func (t tools) parse(ctx context.Context, req *mcp.CallToolRequest, in ParseInput) (*mcp.CallToolResult, ParseOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, ParseOutput{}, err
	}
	data := []byte(in.Content)
	if in.ContentBase64 != "" {
		if data, err = base64.StdEncoding.DecodeString(in.ContentBase64); err != nil {
			return nil, ParseOutput{}, fmt.Errorf("contentBase64 is not base64: %w", err)
		}
	}
	options, _ := json.Marshal(map[string]any{"formats": append([]string{"markdown"}, in.Formats...)})
	doc, err := c.Parse(ctx, in.Filename, data, options)
	if err != nil {
		return nil, ParseOutput{}, err
	}
	var out ParseOutput
	if err := json.Unmarshal(doc, &out.Document); err != nil {
		return nil, ParseOutput{}, err
	}
	out.Markdown, _ = out.Document["markdown"].(string)
	if m, ok := out.Document["metadata"].(map[string]any); ok {
		out.Title, _ = m["title"].(string)
	}
	return textResult(out.Markdown), out, nil
}

// MapInput is the map tool's arguments.
type MapInput struct {
	URL    string `json:"url" jsonschema:"the site"`
	Search string `json:"search,omitempty" jsonschema:"keep the URLs holding each of these words"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most URLs answered (default 5000)"`
}

// MapOutput is what a map answers.
type MapOutput struct {
	URLs []string `json:"urls"`
}

func (t tools) mapSite(ctx context.Context, req *mcp.CallToolRequest, in MapInput) (*mcp.CallToolResult, MapOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, MapOutput{}, err
	}
	body := map[string]any{"url": in.URL}
	if in.Search != "" {
		body["search"] = in.Search
	}
	if in.Limit > 0 {
		body["limit"] = in.Limit
	}
	raw, _ := json.Marshal(body)
	urls, err := c.Map(ctx, raw)
	if err != nil {
		return nil, MapOutput{}, err
	}
	return textResult(strings.Join(urls, "\n")), MapOutput{URLs: urls}, nil
}

// StartCrawlInput is the start_crawl tool's arguments.
type StartCrawlInput struct {
	URL     string         `json:"url" jsonschema:"the page the crawl starts from"`
	Options map[string]any `json:"options,omitempty" jsonschema:"more fields of the service's crawl request, as POST /crawls takes them (maxResults, maxDepth, includeOnlyPaths, excludePaths, entireWebsite, useSitemap, engineType, formats, …)"`
}

// CrawlOutput is a crawl as the tools answer it.
type CrawlOutput struct {
	ID         string              `json:"id"`
	Status     string              `json:"status"`
	StartURL   string              `json:"startUrl"`
	TotalPages int                 `json:"totalPages"`
	Paused     bool                `json:"paused,omitempty"`
	Progress   *apiclient.Progress `json:"progress,omitempty"`
	Ended      bool                `json:"ended"`
}

func crawlOf(c apiclient.Crawl) CrawlOutput {
	return CrawlOutput{ID: c.ID, Status: c.Status, StartURL: c.StartURL, TotalPages: c.TotalPages, Paused: c.Paused,
		Progress: c.Progress, Ended: c.Ended()}
}

func (t tools) startCrawl(ctx context.Context, req *mcp.CallToolRequest, in StartCrawlInput) (*mcp.CallToolResult, CrawlOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	body := map[string]any{}
	for k, v := range in.Options {
		body[k] = v
	}
	body["startUrl"] = in.URL
	raw, _ := json.Marshal(body)
	cr, err := c.Create(ctx, raw)
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	out := crawlOf(cr)
	return textResult(fmt.Sprintf("Crawl %s started (%s). Read it with crawl_status and crawl_pages.", out.ID, out.Status)), out, nil
}

// CrawlIDInput names a crawl.
type CrawlIDInput struct {
	ID string `json:"id" jsonschema:"the crawl's ID"`
}

func (t tools) crawlStatus(ctx context.Context, req *mcp.CallToolRequest, in CrawlIDInput) (*mcp.CallToolResult, CrawlOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	cr, err := c.Crawl(ctx, in.ID)
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	out := crawlOf(cr)
	text := fmt.Sprintf("Crawl %s: %s, %d pages stored.", out.ID, out.Status, out.TotalPages)
	if p := out.Progress; p != nil {
		text += fmt.Sprintf(" Queued %d, in progress %d, failed %d, skipped %d.", p.Queued, p.InProgress, p.Failed, p.Skipped)
	}
	return textResult(text), out, nil
}

func (t tools) cancelCrawl(ctx context.Context, req *mcp.CallToolRequest, in CrawlIDInput) (*mcp.CallToolResult, CrawlOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	cr, err := c.Abort(ctx, in.ID)
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	out := crawlOf(cr)
	return textResult(fmt.Sprintf("Crawl %s: %s, %d pages kept.", out.ID, out.Status, out.TotalPages)), out, nil
}

// PagesInput is the crawl_pages tool's arguments.
type PagesInput struct {
	ID    string `json:"id" jsonschema:"the crawl's ID"`
	Page  int    `json:"page,omitempty" jsonschema:"which page of results, from 1 (default 1)"`
	Limit int    `json:"limit,omitempty" jsonschema:"results a page, 1 to 100 (default 10)"`
}

// PagesOutput is a page of a crawl's results.
type PagesOutput struct {
	Page       int          `json:"page"`
	TotalPages int          `json:"totalPages"`
	NextPage   int          `json:"nextPage,omitempty"`
	Pages      []PageOutput `json:"pages"`
}

// PageOutput is one stored page.
type PageOutput struct {
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
	Markdown string `json:"markdown"`
}

func (t tools) crawlPages(ctx context.Context, req *mcp.CallToolRequest, in PagesInput) (*mcp.CallToolResult, PagesOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, PagesOutput{}, err
	}
	page, limit := max(in.Page, 1), in.Limit
	if limit <= 0 {
		limit = 10
	}
	got, err := c.PagesAt(ctx, in.ID, page, limit)
	if err != nil {
		return nil, PagesOutput{}, err
	}
	out := PagesOutput{Page: got.Page, TotalPages: got.TotalPages, Pages: make([]PageOutput, 0, len(got.Pages))}
	if got.Page < got.TotalPages {
		out.NextPage = got.Page + 1
	}
	var b strings.Builder
	for _, p := range got.Pages {
		out.Pages = append(out.Pages, PageOutput{URL: p.URL, Title: p.Title, Markdown: p.Markdown})
		fmt.Fprintf(&b, "# %s\n<%s>\n\n%s\n\n", p.Title, p.URL, p.Markdown)
	}
	fmt.Fprintf(&b, "(page %d of %d)", out.Page, out.TotalPages)
	return textResult(b.String()), out, nil
}

// ListInput is the list_crawls tool's arguments.
type ListInput struct {
	Status string `json:"status,omitempty" jsonschema:"only crawls with this status"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most crawls answered, 1 to 100 (default 20)"`
}

// ListOutput is the team's crawls.
type ListOutput struct {
	Crawls []CrawlOutput `json:"crawls"`
}

func (t tools) listCrawls(ctx context.Context, req *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	c, err := t.client(ctx, req)
	if err != nil {
		return nil, ListOutput{}, err
	}
	limit := in.Limit
	if limit <= 0 || limit > 100 {
		limit = 20
	}
	out := ListOutput{Crawls: []CrawlOutput{}}
	var b strings.Builder
	err = c.Crawls(ctx, in.Status, limit, false, func(cr apiclient.Crawl) error {
		out.Crawls = append(out.Crawls, crawlOf(cr))
		fmt.Fprintf(&b, "%s %s %s (%d pages)\n", cr.ID, cr.Status, cr.StartURL, cr.TotalPages)
		return nil
	})
	if err != nil {
		return nil, ListOutput{}, err
	}
	return textResult(b.String()), out, nil
}

// textResult is a tool's answer as text for the model to read; the
// structured output goes beside it.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
