package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
	"github.com/durablecrawl/crawler/crawlplan"
	"github.com/durablecrawl/crawler/firecrawl"
)

// planTimeout bounds the planning of a crawl from its prompt.
const planTimeout = 2 * time.Minute

// plan asks the deployment's LLM, through PlanCrawlWorkflow, for the
// options the prompt describes for a crawl of startURL, and counts what
// it cost in the team's usage.
func (s *server) plan(c *fiber.Ctx, startURL, prompt string) (map[string]json.RawMessage, error) {
	if s.LLMTaskQueue == "" {
		return nil, &crawl.Error{Code: crawl.EINVALID, Message: "invalid crawl request",
			Details: []crawl.FieldError{{Field: "prompt", Message: "needs an LLM, and this deployment has none (see CRAWLER_LLM_PROVIDER)"}}}
	}
	p := principal(c)
	ctx, cancel := context.WithTimeout(c.UserContext(), planTimeout)
	defer cancel()
	if err := s.withinQuota(ctx, p.TeamID, true); err != nil {
		return nil, err
	}
	run, err := s.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: crawlflow.PlanWorkflowID(uuid.NewString()), TaskQueue: s.TaskQueue, WorkflowExecutionTimeout: planTimeout,
	}, crawlflow.PlanCrawlWorkflowName, crawlflow.PlanCrawlInput{URL: startURL, Prompt: prompt, LLMTaskQueue: s.LLMTaskQueue})
	if err != nil {
		return nil, fmt.Errorf("start planning the crawl: %w", err)
	}
	var res crawlflow.PlanCrawlResult
	err = run.Get(ctx, &res)
	if cerr := s.countPlanTokens(c, p.TeamID, p.KeyID, res); cerr != nil && err == nil {
		err = cerr
	}
	var appErr *temporal.ApplicationError
	switch {
	case errors.As(err, &appErr) && appErr.Type() == "PlanRefused":
		return nil, &crawl.Error{Code: codeScrapeFailed, Message: "the crawl could not be planned from its prompt: " + appErr.Error()}
	case err != nil && ctx.Err() != nil:
		return nil, crawl.Errorf(crawl.EUNAVAILABLE, "the crawl's prompt was not planned within %s: the LLM is busy", planTimeout)
	case err != nil:
		return nil, crawl.Errorf(crawl.EUNAVAILABLE, "the crawl's prompt could not be planned: %v", err)
	}
	var planned map[string]json.RawMessage
	if err := json.Unmarshal(res.Options, &planned); err != nil {
		return nil, err
	}
	return planned, nil
}

// countPlanTokens counts a planning's tokens for the team and key.
func (s *server) countPlanTokens(c *fiber.Ctx, team, key uuid.UUID, res crawlflow.PlanCrawlResult) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	return s.Store.CountTeamTokens(ctx, team, key, res.TokensIn, res.TokensOut)
}

// checkedPlan is a crawl request body (a JSON object) with the options
// planned from its prompt joined (what the caller typed wins), checked by
// parse as typed options are: a planned option parse refuses is left
// out and named in the warnings.
func checkedPlan(body map[string]json.RawMessage, planned map[string]json.RawMessage, parse func([]byte) error) (map[string]json.RawMessage, []string, error) {
	var warnings []string
	for range 3 {
		merged := crawlplan.Merge(body, planned)
		raw, _ := json.Marshal(merged)
		err := parse(raw)
		var e *crawl.Error
		if err == nil || !errors.As(err, &e) {
			return merged, warnings, err
		}
		dropped := false
		for _, d := range e.Details {
			name := d.Field
			if i := strings.IndexAny(name, "[."); i > 0 {
				name = name[:i]
			}
			if _, typed := body[name]; typed {
				continue
			}
			if _, ok := planned[name]; ok {
				delete(planned, name)
				warnings = append(warnings, fmt.Sprintf("the planned %s was left out: %s", d.Field, d.Message))
				dropped = true
			}
		}
		if !dropped {
			return merged, warnings, err
		}
	}
	return nil, warnings, crawl.Errorf(crawl.EINVALID, "the crawl's planned options do not hold")
}

// fcParamsPreview handles POST /v2/crawl/params-preview: the options a
// crawl of url would be given for prompt, checked, without crawling.
func (s *server) fcParamsPreview(c *fiber.Ctx) error {
	var req struct {
		URL         *string `json:"url"`
		Prompt      *string `json:"prompt"`
		Origin      *string `json:"origin"`
		Integration *string `json:"integration"`
	}
	dec := json.NewDecoder(bytes.NewReader(c.Body()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid params preview request",
			Details: []crawl.FieldError{{Field: "body", Message: "must be {url, prompt, origin, integration}: " + err.Error()}}}
	}
	var bad []crawl.FieldError
	if req.URL == nil || strings.TrimSpace(*req.URL) == "" {
		bad = append(bad, crawl.FieldError{Field: "url", Message: "is required"})
	}
	if req.Prompt == nil || strings.TrimSpace(*req.Prompt) == "" {
		bad = append(bad, crawl.FieldError{Field: "prompt", Message: "is required: what to crawl, in words"})
	} else if len(*req.Prompt) > firecrawl.MaxPrompt {
		bad = append(bad, crawl.FieldError{Field: "prompt", Message: fmt.Sprintf("may hold at most %d characters", firecrawl.MaxPrompt)})
	}
	if len(bad) > 0 {
		return &crawl.Error{Code: crawl.EINVALID, Message: "invalid params preview request", Details: bad}
	}
	u := strings.TrimSpace(*req.URL)
	urlJSON, _ := json.Marshal(u)
	body := map[string]json.RawMessage{"url": urlJSON}
	// The URL is checked before the model is asked.
	if _, err := firecrawl.CrawlOptions(urlOnly(urlJSON), s.Server); err != nil {
		return err
	}
	planned, err := s.plan(c, u, *req.Prompt)
	if err != nil {
		return err
	}
	merged, warnings, err := checkedPlan(body, planned, func(raw []byte) error {
		_, err := firecrawl.CrawlOptions(raw, s.Server)
		return err
	})
	if err != nil {
		return err
	}
	data := map[string]any{}
	names := make([]string, 0, len(merged))
	for k := range merged {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if k != "url" {
			data[k] = merged[k]
		}
	}
	if len(warnings) > 0 {
		data["warning"] = strings.Join(warnings, "; ")
	}
	return c.JSON(fiber.Map{"success": true, "data": data})
}

// urlOnly is a crawl request of the URL alone (u, as JSON).
func urlOnly(u json.RawMessage) []byte {
	return []byte(`{"url":` + string(u) + `}`)
}
