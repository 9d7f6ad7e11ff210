package workflows

import (
	"fmt"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawlflow"
)

// RegisterScheduledOptions registers ScheduledCrawlWorkflow under
// crawlflow.ScheduledCrawlWorkflowName.
func RegisterScheduledOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: crawlflow.ScheduledCrawlWorkflowName}
}

// ScheduledCrawlResult is how a run ended: its crawl and the crawl's
// status, or why it made no crawl.
type ScheduledCrawlResult struct {
	CrawlID string       `json:",omitempty"`
	Status  crawl.Status `json:",omitempty"`
	Skipped string       `json:",omitempty"`
}

// ScheduledCrawlWorkflow is one run of a schedule: it records the run's
// crawl (StartScheduledCrawl: the schedule's request, under its team, with
// its scheduleId) and runs it as an ordinary crawl, CrawlWorkflow as a
// child with the crawl's own workflow ID (crawl-<id>), so that the API,
// the Temporal UI and the CLI find, read and cancel it as any other. The
// run lasts as long as its crawl: the schedule's overlap policy (skip by
// default) sees a crawl still going. Cancelling the run cancels its crawl.
func ScheduledCrawlWorkflow(ctx workflow.Context, in crawlflow.ScheduledCrawlInput) (ScheduledCrawlResult, error) {
	ctx = workflow.WithActivityOptions(ctx, quickActivityOptions)
	var crawlID string
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return uuid.NewString() }).Get(&crawlID); err != nil {
		return ScheduledCrawlResult{}, err
	}
	var started activities.ScheduledCrawl
	if err := workflow.ExecuteActivity(ctx, a.StartScheduledCrawl, activities.StartScheduledCrawlInput{
		ScheduleID: in.ScheduleID, CrawlID: crawlID}).Get(ctx, &started); err != nil {
		return ScheduledCrawlResult{}, err
	}
	if started.Skipped != "" {
		workflow.SetCurrentDetails(ctx, "**Skipped**: "+started.Skipped)
		return ScheduledCrawlResult{Skipped: started.Skipped}, nil
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("**Crawling** as `%s`", crawlflow.WorkflowID(started.CrawlID)))
	child := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:               crawlflow.WorkflowID(started.CrawlID),
		WorkflowExecutionTimeout: started.ExecutionTimeout,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		ParentClosePolicy:        enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
		StaticSummary:            crawlflow.Clip("Scheduled crawl of "+started.StartURL, crawlflow.SummaryBytes),
		StaticDetails: fmt.Sprintf("**Crawl** `%s` of team `%s`, a run of schedule `%s`\n\n- start URL: %s\n",
			started.CrawlID, started.TeamID, in.ScheduleID, crawlflow.Clip(started.StartURL, 300)),
		TypedSearchAttributes: temporal.NewSearchAttributes(
			crawlflow.AttrCrawlID.ValueSet(started.CrawlID),
			crawlflow.AttrTeamID.ValueSet(started.TeamID),
			crawlflow.AttrStatus.ValueSet(string(crawl.StatusRunning)),
			crawlflow.AttrStartURL.ValueSet(crawlflow.StartURLAttr(started.StartURL)),
			crawlflow.AttrScheduleID.ValueSet(in.ScheduleID),
		),
	})
	var res CrawlResult
	err := workflow.ExecuteChildWorkflow(child, crawlflow.CrawlWorkflowName, crawlflow.CrawlInput{CrawlID: started.CrawlID}).Get(ctx, &res)
	out := ScheduledCrawlResult{CrawlID: started.CrawlID, Status: res.Status}
	if err != nil && ctx.Err() != nil {
		return out, temporal.NewCanceledError() // the run was cancelled, and its crawl with it
	}
	if err != nil {
		// The crawl's own end (failed, timed out, cancelled) is its
		// record's; the run reports it and ends.
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("**Ended**: crawl `%s` ended with an error", started.CrawlID))
		return out, nil
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("**Ended**: crawl `%s` %s, %d pages", started.CrawlID, res.Status, res.TotalPages))
	return out, nil
}
