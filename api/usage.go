package api

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/usage"
)

// withinQuota refuses new work of a team past its monthly quota (pages,
// and tokens when llm), or running as many crawls as it may at once.
// Work already running is never stopped for it.
func (s *server) withinQuota(ctx context.Context, team uuid.UUID, llm bool) error {
	q, err := s.Store.TeamQuota(ctx, team)
	if err != nil {
		return err
	}
	if q.MonthlyPages != nil || (llm && q.MonthlyTokens != nil) {
		start, end := usage.Period(time.Now())
		days, err := s.Store.UsageDays(ctx, team, start, end)
		if err != nil {
			return err
		}
		var over *usage.ErrQuota
		if err := q.Check(usage.Sum(days), end, llm); errors.As(err, &over) {
			return &crawl.Error{Code: crawl.EQUOTA, Message: "Insufficient credits to perform this request: " + over.Error()}
		}
	}
	if q.Concurrency != nil {
		jobs, err := s.Store.TeamJobs(ctx, team)
		if err != nil {
			return err
		}
		if jobs.Running >= *q.Concurrency {
			return &crawl.Error{Code: crawl.ERATELIMITED, Message: fmt.Sprintf(
				"the team runs %d crawls, as many as its quota lets it run at once; start this one when one of them ends", jobs.Running)}
		}
	}
	return nil
}

// teamUsage is a team's quota and what it used this month.
func (s *server) teamUsage(c *fiber.Ctx) (usage.Quota, usage.Totals, time.Time, time.Time, error) {
	ctx, cancel := s.ctx(c)
	defer cancel()
	team := principal(c).TeamID
	q, err := s.Store.TeamQuota(ctx, team)
	if err != nil {
		return q, usage.Totals{}, time.Time{}, time.Time{}, err
	}
	start, end := usage.Period(time.Now())
	days, err := s.Store.UsageDays(ctx, team, start, end)
	if err != nil {
		return q, usage.Totals{}, start, end, err
	}
	return q, usage.Sum(days), start, end, nil
}

// fcCreditUsage handles GET /v2/team/credit-usage (v1 too): the result
// pages the team may still store this month, against its quota.
func (s *server) fcCreditUsage(c *fiber.Ctx) error {
	q, used, start, end, err := s.teamUsage(c)
	if err != nil {
		return err
	}
	left := usage.Left(q.MonthlyPages, used.Pages)
	data := fiber.Map{"remainingCredits": left, "planCredits": q.MonthlyPages, "billingPeriodStart": start.Format(time.RFC3339),
		"billingPeriodEnd": end.Format(time.RFC3339), "creditsUsed": used.Pages}
	if strings.HasPrefix(c.Path(), "/v1/") {
		return c.JSON(fiber.Map{"success": true, "data": fiber.Map{"remaining_credits": left}})
	}
	return c.JSON(fiber.Map{"success": true, "data": data})
}

// fcTokenUsage handles GET /v2/team/token-usage (v1 too): the LLM
// tokens the team may still use this month.
func (s *server) fcTokenUsage(c *fiber.Ctx) error {
	q, used, start, end, err := s.teamUsage(c)
	if err != nil {
		return err
	}
	left := usage.Left(q.MonthlyTokens, used.Tokens)
	if strings.HasPrefix(c.Path(), "/v1/") {
		return c.JSON(fiber.Map{"success": true, "data": fiber.Map{"remaining_tokens": left}})
	}
	return c.JSON(fiber.Map{"success": true, "data": fiber.Map{"remainingTokens": left, "planTokens": q.MonthlyTokens,
		"billingPeriodStart": start.Format(time.RFC3339), "billingPeriodEnd": end.Format(time.RFC3339), "tokensUsed": used.Tokens}})
}

// historyDays is how far back the historical usage goes.
const historyDays = 90

// fcUsageHistory handles GET /v2/team/credit-usage/historical and
// /v2/team/token-usage/historical: one period a day (with byApiKey=true,
// a day and a key) of the last historyDays days that has usage.
func (s *server) fcUsageHistory(tokens bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		byKey := false
		if v := c.Query("byApiKey"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return &crawl.Error{Code: crawl.EINVALID, Message: "invalid query parameters",
					Details: []crawl.FieldError{{Field: "byApiKey", Message: "must be true or false"}}}
			}
			byKey = b
		}
		ctx, cancel := s.ctx(c)
		defer cancel()
		now := time.Now().UTC()
		to := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
		days, err := s.Store.UsageDays(ctx, principal(c).TeamID, to.AddDate(0, 0, -historyDays), to)
		if err != nil {
			return err
		}
		periods := []fiber.Map{}
		for _, d := range usage.Daily(days, byKey) {
			p := fiber.Map{"startDate": d.Start.Format(time.RFC3339), "endDate": d.End.Format(time.RFC3339)}
			if tokens {
				p["tokensUsed"] = d.Tokens
			} else {
				p["creditsUsed"] = d.Pages
			}
			if d.KeyID != nil {
				p["apiKey"] = keyName(*d.KeyID)
			}
			periods = append(periods, p)
		}
		return c.JSON(fiber.Map{"success": true, "periods": periods})
	}
}

// keyName names an API key in usage: its ID (the key itself is never
// kept), or "none" for work no key asked for.
func keyName(id uuid.UUID) string {
	if id == uuid.Nil {
		return "none"
	}
	return id.String()
}

// fcConcurrency handles GET /v2/concurrency-check: the team's crawls
// running now, and how many its quota lets run at once (usage.Unlimited
// when it has no bound).
func (s *server) fcConcurrency(c *fiber.Ctx) error {
	running, most, _, err := s.teamJobs(c)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "concurrency": running, "maxConcurrency": most})
}

// fcQueueStatus handles GET /v2/team/queue-status: the team's jobs. Its
// crawls run as soon as they are started (a team at its concurrency
// waits before it starts one), so none waits in a queue.
func (s *server) fcQueueStatus(c *fiber.Ctx) error {
	running, most, last, err := s.teamJobs(c)
	if err != nil {
		return err
	}
	out := fiber.Map{"success": true, "jobsInQueue": running, "activeJobsInQueue": running, "waitingJobsInQueue": 0,
		"maxConcurrency": most}
	if last != nil {
		out["mostRecentSuccess"] = last.UTC().Format(time.RFC3339)
	}
	return c.JSON(out)
}

// teamJobs is the team's running crawls, the most it may run at once
// (usage.Unlimited without a quota), and its last success.
func (s *server) teamJobs(c *fiber.Ctx) (int, int, *time.Time, error) {
	ctx, cancel := s.ctx(c)
	defer cancel()
	team := principal(c).TeamID
	q, err := s.Store.TeamQuota(ctx, team)
	if err != nil {
		return 0, 0, nil, err
	}
	jobs, err := s.Store.TeamJobs(ctx, team)
	if err != nil {
		return 0, 0, nil, err
	}
	most := usage.Unlimited
	if q.Concurrency != nil {
		most = *q.Concurrency
	}
	return jobs.Running, most, jobs.LastSuccess, nil
}
