package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/durablecrawl/crawler/activities"
	"github.com/durablecrawl/crawler/crawl"
)

// TestWebhooksDeliveredAfterTheEnd: a crawl with a webhook delivers its
// events while it crawls, and its run ends only after the final
// deliveries, retried while events are pending, report nothing left.
func TestWebhooksDeliveredAfterTheEnd(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(CrawlWorkflow, RegisterOptions())
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(a.StartCrawl, mock.Anything, mock.Anything).Return(activities.CrawlPlan{
		Status: crawl.StatusRunning, Budget: 10, BatchSize: 10, TimeoutSeconds: 1800, Webhooks: true}, nil).Once()
	env.OnActivity(a.SettleDeduplication, mock.Anything, mock.Anything).Return(activities.SettleDeduplicationResult{}, nil).Maybe()
	env.OnActivity(a.FetchPages, mock.Anything, activities.FetchPagesInput{CrawlID: "c1", Batch: 0, Limit: 10, Convert: true}).
		Return(activities.FetchPagesResult{Claimed: 2, Fetched: 2, Converted: 2}, nil).Once()
	env.OnActivity(a.DeduplicatePages, mock.Anything, mock.Anything).
		Return(activities.DeduplicatePagesResult{Stored: 2, TotalPages: 2, Logged: true}, nil).Once()
	env.OnActivity(a.FetchPages, mock.Anything, mock.Anything).Return(activities.FetchPagesResult{}, nil).Once()
	var status crawl.Status
	expectFinish(env, &status, 2)

	var calls []activities.DeliverWebhooksInput
	var finishedAt, lastDelivery time.Time
	env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, _ error) {
		if info.ActivityType.Name == "FinishCrawl" {
			finishedAt = env.Now()
		}
	})
	final := 0
	env.OnActivity(a.DeliverWebhooks, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DeliverWebhooksInput) (activities.DeliverWebhooksResult, error) {
			calls = append(calls, in)
			lastDelivery = env.Now()
			if !in.Final {
				return activities.DeliverWebhooksResult{}, nil
			}
			// The receiver fails twice: two events wait a minute each time.
			if final++; final <= 2 {
				return activities.DeliverWebhooksResult{Pending: 2, RetryIn: time.Minute}, nil
			}
			return activities.DeliverWebhooksResult{}, nil
		})

	runCrawl(t, env, &status, crawl.StatusSucceeded)
	if len(calls) < 4 || calls[0].Final {
		t.Fatalf("DeliverWebhooks calls %+v: want deliveries while crawling, then final ones", calls)
	}
	if final != 3 || !calls[len(calls)-1].Final {
		t.Errorf("%d final deliveries, want 3 (two with events pending, one with none)", final)
	}
	if finishedAt.IsZero() || lastDelivery.Sub(finishedAt) < 2*time.Minute {
		t.Errorf("last delivery at %v, crawl finished at %v: want the retries' two minutes after the end", lastDelivery, finishedAt)
	}
}
