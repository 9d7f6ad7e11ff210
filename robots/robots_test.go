package robots

import (
	"testing"
	"time"
)

const file = `User-agent: *
Disallow: /private/
Allow: /private/open
Crawl-delay: 2

User-agent: durablecrawl
Disallow: /no-bots/
Crawl-delay: 120

Sitemap: https://example.com/sitemap-a.xml
Sitemap: https://example.com/sitemap-b.xml.gz
`

func TestPolicy(t *testing.T) {
	ours := Parse(200, []byte(file), "durablecrawl/0.1 (+https://example.com)")
	if ours.Allows("/no-bots/x") || !ours.Allows("/private/x") || !ours.Allows("/") {
		t.Error("our own group is not the one applied")
	}
	if ours.CrawlDelay() != MaxCrawlDelay {
		t.Errorf("crawl delay %v, want the cap", ours.CrawlDelay())
	}
	other := Parse(200, []byte(file), "OtherBot/2.0")
	if other.Allows("/private/x") || !other.Allows("/private/open") || !other.Allows("/no-bots/x") {
		t.Error("the * group is not applied to other agents")
	}
	if other.CrawlDelay() != 2*time.Second {
		t.Errorf("crawl delay %v, want 2s", other.CrawlDelay())
	}
	if got := ours.Sitemaps(); len(got) != 2 || got[1] != "https://example.com/sitemap-b.xml.gz" {
		t.Errorf("sitemaps = %v", got)
	}
}

func TestStatuses(t *testing.T) {
	if !Parse(404, nil, "x").Allows("/anything") || !Parse(0, nil, "x").Allows("/anything") {
		t.Error("a missing robots.txt must allow everything")
	}
	if Parse(503, nil, "x").Allows("/anything") {
		t.Error("a failing robots.txt must disallow everything")
	}
}

func TestToken(t *testing.T) {
	for in, want := range map[string]string{"durablecrawl/0.1 (+https://x)": "durablecrawl", "Bot": "Bot", "My Bot/1": "My"} {
		if got := Token(in); got != want {
			t.Errorf("Token(%q) = %q, want %q", in, got, want)
		}
	}
}
