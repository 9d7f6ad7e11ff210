package activities

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/extract"
)

// fakePlanner answers each question with the next of its answers.
type fakePlanner struct {
	answers   []string
	errs      []error
	questions []string
}

func (f *fakePlanner) Complete(_ context.Context, system, user string) (string, extract.Tokens, error) {
	f.questions = append(f.questions, user)
	i := len(f.questions) - 1
	if i < len(f.errs) && f.errs[i] != nil {
		return "", extract.Tokens{}, f.errs[i]
	}
	return f.answers[i], extract.Tokens{In: 100, Out: 20}, nil
}

// TestPlanCrawl: options the model answers are taken; an answer that is
// not options is asked again with what was wrong, then refused for
// good; a busy provider is retried by Temporal, a refusing one not.
func TestPlanCrawl(t *testing.T) {
	in := crawlflow.PlanCrawlInput{URL: "https://x.example/blog/", Prompt: "only 2024"}
	f := &fakePlanner{answers: []string{`{"includePaths": ["^/blog/2024/"]}`}}
	out, err := planCrawl(context.Background(), f, in)
	if err != nil || string(out.Options) != `{"includePaths":["^/blog/2024/"]}` || out.TokensIn != 100 || out.TokensOut != 20 {
		t.Errorf("plan: %+v, %v", out, err)
	}
	f = &fakePlanner{answers: []string{"Sure!", `{"limit": 3}`}}
	out, err = planCrawl(context.Background(), f, in)
	if err != nil || string(out.Options) != `{"limit":3}` || out.TokensIn != 200 || len(f.questions) != 2 || !strings.Contains(f.questions[1], "Sure!") {
		t.Errorf("a second try: %+v, %v, %q", out, err, f.questions)
	}
	f = &fakePlanner{answers: []string{"no", `{"limit": -1}`}}
	_, err = planCrawl(context.Background(), f, in)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != "PlanRefused" || !appErr.NonRetryable() {
		t.Errorf("two answers that are not options: %v", err)
	}
	f = &fakePlanner{errs: []error{&extract.Error{Retryable: true, Err: errors.New("429")}}}
	if _, err = planCrawl(context.Background(), f, in); errors.As(err, &appErr) {
		t.Errorf("a busy provider failed for good: %v", err)
	}
	f = &fakePlanner{errs: []error{&extract.Error{Retryable: false, Err: errors.New("401")}}}
	if _, err = planCrawl(context.Background(), f, in); !errors.As(err, &appErr) || appErr.Type() != "PlanRefused" {
		t.Errorf("a refusing provider: %v", err)
	}
}
