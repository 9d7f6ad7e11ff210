package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/crawlplan"
	"github.com/durablecrawl/crawler/extract"
)

// planner is what PlanCrawl needs of the model.
type planner interface {
	Complete(ctx context.Context, system, user string) (string, extract.Tokens, error)
}

var _ planner = (*extract.Extractor)(nil)

// PlanCrawl asks the LLM for the crawl options a sentence describes
// (package crawlplan), once more with the problem when the first answer
// is not such options. A provider that is busy fails the attempt for a
// retry; a model that cannot answer fails for good (PlanRefused).
func (a *Activities) PlanCrawl(ctx context.Context, in crawlflow.PlanCrawlInput) (crawlflow.PlanCrawlResult, error) {
	if a.LLM == nil {
		return crawlflow.PlanCrawlResult{}, nonRetryable(errors.New("this worker has no LLM: set CRAWLER_LLM_PROVIDER and CRAWLER_LLM_MODEL"))
	}
	p, ok := a.LLM.(planner)
	if !ok {
		return crawlflow.PlanCrawlResult{}, nonRetryable(errors.New("this worker's LLM cannot plan crawls"))
	}
	return planCrawl(ctx, p, in)
}

func planCrawl(ctx context.Context, p planner, in crawlflow.PlanCrawlInput) (crawlflow.PlanCrawlResult, error) {
	var out crawlflow.PlanCrawlResult
	question := crawlplan.Question(in.URL, in.Prompt)
	for round := 1; ; round++ {
		answer, tokens, err := p.Complete(ctx, crawlplan.SystemPrompt, question)
		out.TokensIn += tokens.In
		out.TokensOut += tokens.Out
		if err != nil {
			var e *extract.Error
			if errors.As(err, &e) && !e.Retryable {
				return out, temporal.NewNonRetryableApplicationError("the model refused: "+err.Error(), "PlanRefused", err)
			}
			return out, err
		}
		options, err := crawlplan.Read(answer)
		if err == nil {
			out.Options, _ = jsonObject(options)
			return out, nil
		}
		if round == 2 {
			return out, temporal.NewNonRetryableApplicationError(fmt.Sprintf("the model gave no crawl options: %v", err), "PlanRefused", err)
		}
		question += fmt.Sprintf("\n\nYour answer was:\n%s\nIt is not valid: %v\nAnswer again with the JSON object alone.", cut(answer, 2000), err)
	}
}

// jsonObject encodes options as one JSON object.
func jsonObject(options map[string]json.RawMessage) ([]byte, error) {
	return json.Marshal(options)
}
