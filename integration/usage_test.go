package integration

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/internal/testsite"
	"github.com/durablecrawl/crawler/usage"
)

// newTeamKey makes a team of the test's own (its usage is no other
// test's) and answers a key of it and the key's ID.
func newTeamKey(t *testing.T, name string) (string, string) {
	t.Helper()
	ctx := context.Background()
	key, err := env.store.CreateAPIKey(ctx, name+"-"+uuid.NewString()[:8], nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := env.store.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	return key, p.KeyID.String()
}

// creditUsage reads GET /v2/team/credit-usage with key.
func creditUsage(t *testing.T, base, key string) (left int64, used int64, plan *int64) {
	t.Helper()
	var out struct {
		Success bool `json:"success"`
		Data    struct {
			RemainingCredits int64  `json:"remainingCredits"`
			CreditsUsed      int64  `json:"creditsUsed"`
			PlanCredits      *int64 `json:"planCredits"`
			Start            string `json:"billingPeriodStart"`
		} `json:"data"`
	}
	if code, body := call(t, "GET", base+"/v2/team/credit-usage", key, nil, &out); code != 200 || !out.Success || out.Data.Start == "" {
		t.Fatalf("credit usage: %d %s", code, body)
	}
	return out.Data.RemainingCredits, out.Data.CreditsUsed, out.Data.PlanCredits
}

// TestUsageAndQuotas: a team's stored pages are its credits, exactly; a
// quota below them refuses new work with Firecrawl's 402 on every API
// while the crawl that passed it runs to its end; a concurrency of one
// refuses a second crawl while the first runs; the historical usage is
// by day and by key.
func TestUsageAndQuotas(t *testing.T) {
	t.Parallel()
	key, keyID := newTeamKey(t, "usage")
	site := httptest.NewServer(testsite.New(testsite.Options{Pages: 60}))
	defer site.Close()
	if left, used, plan := creditUsage(t, env.api, key); left != usage.Unlimited || used != 0 || plan != nil {
		t.Errorf("a new team's credits: %d left, %d used, plan %v", left, used, plan)
	}
	c := create(t, env.api, key, map[string]any{"startUrl": site.URL + "/", "maxResults": 25})
	done := waitStatus(t, env.api, key, c.ID, 2*time.Minute, "succeeded")
	if _, used, _ := creditUsage(t, env.api, key); used != int64(done.TotalPages) || done.TotalPages != 25 {
		t.Errorf("%d pages stored, %d counted", done.TotalPages, used)
	}

	// A quota of 30 pages: the next crawl starts (25 < 30) and runs past
	// it to its own limit; then new work is refused, on both APIs.
	ctx := context.Background()
	pages := int64(30)
	var team struct {
		Team struct {
			Name string `json:"name"`
		} `json:"team"`
	}
	call(t, "GET", env.api+"/me", key, nil, &team)
	// Set by the operator's command.
	bin := buildCrawler(t)
	quota := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"quota"}, args...)...)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+env.databaseURL)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("crawler quota %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := quota("set", "--team", team.Team.Name, "--pages", fmt.Sprint(pages)); !strings.Contains(out, "pages:       25 used, quota 30") {
		t.Errorf("crawler quota set: %s", out)
	}
	c2 := create(t, env.api, key, map[string]any{"startUrl": site.URL + "/", "maxResults": 10, "entireWebsite": false})
	done2 := waitStatus(t, env.api, key, c2.ID, 2*time.Minute, "succeeded")
	left, used, plan := creditUsage(t, env.api, key)
	if done2.TotalPages != 10 || used != 35 || left != 0 || plan == nil || *plan != 30 {
		t.Errorf("past the quota: crawl stored %d, usage %d used, %d left, plan %v", done2.TotalPages, used, left, plan)
	}
	if code, body := call(t, "POST", env.api+"/crawls", key, map[string]any{"startUrl": site.URL + "/"}, nil); code != http.StatusPaymentRequired ||
		!strings.Contains(string(body), "35 of its 30 pages") {
		t.Errorf("a crawl past the quota: %d %s", code, body)
	}
	var fcErr struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	if code, body := call(t, "POST", env.api+"/v2/scrape", key, map[string]any{"url": site.URL + "/s1/p1"}, &fcErr); code != http.StatusPaymentRequired ||
		fcErr.Success || !strings.HasPrefix(fcErr.Error, "Insufficient credits") {
		t.Errorf("a scrape past the quota: %d %s", code, body)
	}

	// Concurrency: with room for pages again, one crawl at a time.
	more, one := int64(1000), 1
	if _, err := env.store.SetTeamQuota(ctx, team.Team.Name, usage.Quota{MonthlyPages: &more, Concurrency: &one}); err != nil {
		t.Fatal(err)
	}
	slow := slowSite(t, 300*time.Millisecond)
	running := create(t, env.api, key, map[string]any{"startUrl": slow.URL + "/", "maxResults": 5})
	if code, body := call(t, "POST", env.api+"/crawls", key, map[string]any{"startUrl": site.URL + "/"}, nil); code != http.StatusTooManyRequests ||
		!strings.Contains(string(body), "runs 1 crawls") {
		t.Errorf("a second crawl at a concurrency of one: %d %s", code, body)
	}
	var conc struct {
		Concurrency    int `json:"concurrency"`
		MaxConcurrency int `json:"maxConcurrency"`
	}
	call(t, "GET", env.api+"/v2/concurrency-check", key, nil, &conc)
	if conc.Concurrency != 1 || conc.MaxConcurrency != 1 {
		t.Errorf("concurrency check: %+v", conc)
	}
	waitStatus(t, env.api, key, running.ID, 2*time.Minute, "succeeded")
	var queue struct {
		JobsInQueue       int    `json:"jobsInQueue"`
		MostRecentSuccess string `json:"mostRecentSuccess"`
	}
	call(t, "GET", env.api+"/v2/team/queue-status", key, nil, &queue)
	if queue.JobsInQueue != 0 || queue.MostRecentSuccess == "" {
		t.Errorf("queue status after the crawls: %+v", queue)
	}

	// Historical: today's credits, by key.
	var hist struct {
		Periods []struct {
			StartDate   string `json:"startDate"`
			APIKey      string `json:"apiKey"`
			CreditsUsed int64  `json:"creditsUsed"`
		} `json:"periods"`
	}
	if code, body := call(t, "GET", env.api+"/v2/team/credit-usage/historical?byApiKey=true", key, nil, &hist); code != 200 ||
		len(hist.Periods) != 1 || hist.Periods[0].APIKey != keyID || hist.Periods[0].CreditsUsed != 40 ||
		!strings.HasPrefix(hist.Periods[0].StartDate, time.Now().UTC().Format(time.DateOnly)) {
		t.Errorf("historical credits by key: %d %s", code, body)
	}
	if code, body := call(t, "GET", env.api+"/v2/team/credit-usage/historical?byApiKey=perhaps", key, nil, nil); code != 400 ||
		!strings.Contains(string(body), "byApiKey") {
		t.Errorf("a bad byApiKey: %d %s", code, body)
	}
	// Tokens: none spent by this team.
	var tokens struct {
		Data struct {
			RemainingTokens int64 `json:"remainingTokens"`
			TokensUsed      int64 `json:"tokensUsed"`
		} `json:"data"`
	}
	call(t, "GET", env.api+"/v2/team/token-usage", key, nil, &tokens)
	if tokens.Data.TokensUsed != 0 || tokens.Data.RemainingTokens != usage.Unlimited {
		t.Errorf("token usage: %+v", tokens)
	}
}

// TestTokenUsage: the tokens of a crawl's extraction are the team's, as
// the model reported them, and its historical tokens add up to them.
func TestTokenUsage(t *testing.T) {
	t.Parallel()
	key, _ := newTeamKey(t, "tokens")
	site := httptest.NewServer(testsite.New(testsite.Options{Pages: 10}))
	defer site.Close()
	c := create(t, env.llmAPI, key, map[string]any{"startUrl": site.URL + "/", "maxResults": 3, "extraction": "The page's title."})
	waitStatus(t, env.llmAPI, key, c.ID, 2*time.Minute, "succeeded")
	var tokens struct {
		Data struct {
			TokensUsed int64 `json:"tokensUsed"`
		} `json:"data"`
	}
	// Extraction is recorded as the crawl ends: read once it has.
	call(t, "GET", env.llmAPI+"/v2/team/token-usage", key, nil, &tokens)
	var hist struct {
		Periods []struct {
			TokensUsed int64 `json:"tokensUsed"`
		} `json:"periods"`
	}
	call(t, "GET", env.llmAPI+"/v2/team/token-usage/historical", key, nil, &hist)
	if tokens.Data.TokensUsed <= 0 || len(hist.Periods) != 1 || hist.Periods[0].TokensUsed != tokens.Data.TokensUsed {
		t.Errorf("tokens used %d, historical %+v", tokens.Data.TokensUsed, hist.Periods)
	}
}
