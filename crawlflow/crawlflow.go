// Package crawlflow is the contract of the crawl workflows with their
// callers: the workflow types' names and IDs, their inputs, the search
// attributes and summary an operator sees in the Temporal UI, and the
// ChangeCrawl update with its errors. The API starts, steers and finds
// crawls through it without linking the engine (package workflows and the
// activities implement the contract).
package crawlflow

import (
	"go.temporal.io/sdk/temporal"
)

// CrawlWorkflowName is the workflow type operators see in the Temporal UI.
const CrawlWorkflowName = "CrawlWorkflow"

// WorkflowID returns the workflow ID of a crawl, so that an operator can
// find a crawl from its ID (and the other way round).
func WorkflowID(crawlID string) string { return "crawl-" + crawlID }

// Search attributes of crawl workflows. They must be registered on the
// Temporal namespace (the worker does it at start; `make run` passes them
// to the dev server).
var (
	AttrCrawlID     = temporal.NewSearchAttributeKeyKeyword("CrawlId")
	AttrTeamID      = temporal.NewSearchAttributeKeyKeyword("CrawlTeamId")
	AttrStatus      = temporal.NewSearchAttributeKeyKeyword("CrawlStatus")
	AttrStartURL    = temporal.NewSearchAttributeKeyKeyword("CrawlStartUrl")
	AttrTotalPages  = temporal.NewSearchAttributeKeyInt64("CrawlTotalPages")
	SearchAttrTypes = map[string]string{
		"CrawlId": "Keyword", "CrawlTeamId": "Keyword", "CrawlStatus": "Keyword",
		"CrawlStartUrl": "Keyword", "CrawlTotalPages": "Int", "CrawlScheduleId": "Keyword",
	}
)

// ScheduledCrawlWorkflowName is the workflow type of a schedule's runs,
// which the schedule's Temporal Schedule starts.
const ScheduledCrawlWorkflowName = "ScheduledCrawlWorkflow"

// ScheduleID is the ID of a schedule's Temporal Schedule; RunWorkflowID
// the workflow ID its runs start from (Temporal adds each run's time).
func ScheduleID(scheduleID string) string    { return "schedule-" + scheduleID }
func RunWorkflowID(scheduleID string) string { return "scheduled-" + scheduleID }

// AttrScheduleID is the search attribute that names the schedule of a
// scheduled run and of its crawl.
var AttrScheduleID = temporal.NewSearchAttributeKeyKeyword("CrawlScheduleId")

// CrawlInput starts a crawl's workflow: the crawl, recorded by the API
// before it starts the workflow. (The workflow's runs carry more across
// continue-as-new; a caller sets only this.)
type CrawlInput struct {
	CrawlID string
}

// ScheduledCrawlInput names the schedule whose run this is.
type ScheduledCrawlInput struct {
	ScheduleID string
}

// ChangeUpdateName is the Temporal Update that changes a running crawl
// (crawl.Change): its page limit, excludePaths, pages in flight, or
// whether it is paused. Its validator refuses a change that is not valid
// (it never enters history); the update is answered once the change is
// applied.
const ChangeUpdateName = "ChangeCrawl"

// ChangeResult is the crawl after a change: its page limit, whether it is
// paused, and how many queued pages the change dropped.
type ChangeResult struct {
	Budget  int
	Paused  bool
	Dropped int
}

// ErrCrawlEnded is the type of the error an update to a crawl that is
// ending (or ended) gets.
const ErrCrawlEnded = "CrawlEnded"

// ErrCrawlContinuing is the type of the error an update gets in the last
// moments of a run that continues as new: the next run takes it.
const ErrCrawlContinuing = "CrawlContinuing"

// PlanCrawlWorkflowName is the workflow that turns a sentence into a
// crawl's options with the deployment's LLM (Firecrawl's crawl prompt and
// params preview); PlanWorkflowID its ID, from a fresh ID of the caller's.
const PlanCrawlWorkflowName = "PlanCrawlWorkflow"

func PlanWorkflowID(id string) string { return "plan-" + id }

// PlanCrawlInput is the start URL and the sentence to plan, and the task
// queue of the workers with an LLM. The sentence is the caller's own
// words, never a page's.
type PlanCrawlInput struct {
	URL, Prompt  string
	LLMTaskQueue string
}

// PlanCrawlResult is the options the model answered (a JSON object of
// Firecrawl crawl request fields, checked against crawlplan.Schema) and
// what they cost.
type PlanCrawlResult struct {
	Options             []byte
	TokensIn, TokensOut int64
}
