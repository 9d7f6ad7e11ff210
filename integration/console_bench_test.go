package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/durablecrawl/crawler/crawl"
)

// consoleBenchPages is the size of the crawl BenchmarkConsoleReads reads:
// the console's figure is a 100,000-page crawl.
const consoleBenchPages = 100_000

// bigCrawl writes a finished crawl of team A with pages stored pages (a
// kilobyte of markdown each) and two log entries a page, one in fifty of
// them a warning, straight into Postgres, and returns its ID.
func bigCrawl(b *testing.B, pages int) string {
	b.Helper()
	ctx := context.Background()
	o, err := crawl.ParseRequest([]byte(`{"startUrl":"https://big.example/","maxResults":10000}`), crawl.Server{})
	if err != nil {
		b.Fatal(err)
	}
	id := uuid.New()
	c := crawl.NewCrawl(id, uuid.MustParse(env.teamA), nil, "crawl-"+id.String(), o, json.RawMessage(`{}`), time.Now().Add(-time.Hour))
	if err := env.store.InsertCrawl(ctx, c); err != nil {
		b.Fatal(err)
	}
	sqlDB := env.store.DB()
	for _, q := range []string{
		`UPDATE crawls SET status = 'succeeded', total_pages = ?1, completed_at = now() WHERE id = ?0`,
		`INSERT INTO pages (crawl_id, url, normalized_url, depth, state, status_code, title, markdown, engine, fetched_at, stored_at)
		 SELECT ?0, 'https://big.example/p/' || n, 'https://big.example/p/' || n, 1, 'stored', 200, 'Page ' || n,
		        '# Page ' || n || E'\n\n' || repeat('A line of the page''s own text. ', 32), 'cheerio',
		        now() - interval '1 hour' + n * interval '1 millisecond', now() - interval '1 hour' + n * interval '1 millisecond'
		 FROM generate_series(1, ?1) AS n`,
		`INSERT INTO crawl_logs (crawl_id, team_id, key, level, message, description, data, created_at)
		 SELECT ?0, ?2, 'p' || n || '-' || k, CASE WHEN k = 1 AND n % 50 = 0 THEN 'warn' ELSE 'info' END,
		        CASE WHEN k = 1 THEN 'Page crawled' ELSE 'Page deduplicated' END, 'A description of what happened to the page.',
		        jsonb_build_object('url', 'https://big.example/p/' || n, 'statusCode', 200),
		        now() - interval '1 hour' + (2 * n + k) * interval '1 millisecond'
		 FROM generate_series(1, ?1) AS n, generate_series(1, 2) AS k`,
		`ANALYZE pages`, `ANALYZE crawl_logs`,
	} {
		if _, err := sqlDB.ExecContext(ctx, q, id, pages, env.teamA); err != nil {
			b.Fatalf("write the big crawl: %v", err)
		}
	}
	return id.String()
}

// BenchmarkConsoleReads measures what the console asks of the API on a
// crawl of 100,000 pages: the crawl with its progress (its view, polled
// once a second), pages of its log (first, middle, last; all, and one
// level), pages of its page list (without markdown; searched), and the
// crawl's view opened in Chromium until its figures show.
func BenchmarkConsoleReads(b *testing.B) {
	id := bigCrawl(b, consoleBenchPages)
	get := func(b *testing.B, path string) {
		req, _ := http.NewRequest("GET", env.api+path, nil)
		req.Header.Set("Authorization", "Bearer "+env.keyA)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("GET %s: %d", path, res.StatusCode)
		}
	}
	logPages := 2 * consoleBenchPages / 100
	for _, r := range []struct{ name, path string }{
		{"crawl", "/crawls/" + id},
		{"log/first", "/crawl-logs/" + id + "?limit=100"},
		{"log/middle", fmt.Sprintf("/crawl-logs/%s?limit=100&page=%d", id, logPages/2)},
		{"log/last", fmt.Sprintf("/crawl-logs/%s?limit=100&page=%d", id, logPages)},
		{"log/warn-last", fmt.Sprintf("/crawl-logs/%s?limit=100&level=warn&page=%d", id, consoleBenchPages/50/100)},
		{"log/one-page", "/crawl-logs/" + id + "?limit=20&url=https%3A%2F%2Fbig.example%2Fp%2F77777"},
		{"pages/first", "/crawls/" + id + "/pages?limit=20&markdown=false"},
		{"pages/last", fmt.Sprintf("/crawls/%s/pages?limit=20&markdown=false&page=%d", id, consoleBenchPages/20)},
		{"pages/search", "/crawls/" + id + "/pages?limit=20&markdown=false&q=p%2F9999"},
		{"pages/one", fmt.Sprintf("/crawls/%s/pages?limit=1&page=%d", id, consoleBenchPages/2)},
	} {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				get(b, r.path)
			}
		})
	}
	b.Run("view-in-chromium", func(b *testing.B) {
		page := consolePage(b)
		_, err := page.Goto(env.api + "/console/")
		if err != nil {
			b.Fatal(err)
		}
		if err := page.Locator("#key").Fill(env.keyA); err != nil {
			b.Fatal(err)
		}
		if err := page.Locator("#key").Press("Enter"); err != nil {
			b.Fatal(err)
		}
		if err := page.GetByText("Team team-a").WaitFor(); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := page.Goto(env.api + "/console/#/crawls"); err != nil {
				b.Fatal(err)
			}
			if err := page.Locator("h1", playwright.PageLocatorOptions{HasText: "Crawls"}).WaitFor(); err != nil {
				b.Fatal(err)
			}
			if _, err := page.Goto(env.api + "/console/#/crawls/" + id); err != nil {
				b.Fatal(err)
			}
			if err := page.Locator(`[data-figure="stored"] b`, playwright.PageLocatorOptions{HasText: fmt.Sprint(consoleBenchPages)}).WaitFor(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
