package workflows

// The version gates of the crawl workflow: each marks a change of its
// code, so that runs begun before it replay as they ran (see
// replay_test.go and the histories in testdata).
//
// The version floor: a gate whose old branch no run in flight can take
// any more is retired by raising its minimum version to the new one
// (GetVersion(ctx, id, 1, 1)) and deleting the old branch. A run that did
// take it would then fail its workflow task with an unsupported-version
// error instead of running code it was not recorded with. Before raising
// a floor, an operator checks that no such run is left: a run (or a
// continue-as-new run) that started before the first deployment of the
// gate finished may have taken the old branch, one started after cannot.
// With the time that deployment finished (not the commit's date, which is
// given below):
//
//	temporal workflow list --query 'WorkflowType="CrawlWorkflow" AND ExecutionStatus="Running" AND StartTime < "<deployed at>"'
//
// An empty answer means the floor is safe. Time alone also answers it: a
// crawl's workflow (with its continue-as-new runs) ends within its
// execution timeout (crawl.ExecutionTimeout: at most 7 days, 15 minutes,
// and for a webhook two retry windows and an hour, 7 days 13 hours 15
// minutes with the default window), so a gate deployed longer ago than
// that has no run left on its old branch. Retired so far:
//   - pipelined-batches (added 2026-11-23): the loop that fetched, stored
//     and logged one batch at a time, and with it deduplicate-and-extract
//     (which only that loop asked), are gone; every recorded history of
//     a crawl already took the pipelined branch.

// pipelinedBatches marks the workflow change that fetches the next batch
// while the last one is converted, deduplicated and logged. Its floor is
// version 1 (see above).
const pipelinedBatches = "pipelined-batches"

// logsWithResults marks the workflow change that writes a batch's log
// entries in DeduplicatePages when the crawl has no extraction, instead
// of in an activity of their own. Version 2 still runs WriteLogs when
// DeduplicatePages did not say it wrote them (a worker older than the
// change ignores the request).
const logsWithResults = "logs-with-results"

// convertAtFetch marks the workflow change that converts each page in
// the fetch activity, as soon as it is fetched, instead of writing its
// HTML to the database for ConvertPages to read back. Version 2 still
// runs ConvertPages on a batch whose fetch left pages unconverted.
const convertAtFetch = "convert-at-fetch"

// totalPagesAttribute marks the workflow change that updates
// CrawlTotalPages after each stored batch, not only at the end.
const totalPagesAttribute = "total-pages-attribute"

// renderDeepPages marks the workflow change that renders, in browser
// batches of their own, the pages below the start page that a static
// fetch found to need JavaScript, while the rest of the crawl stays static.
const renderDeepPages = "render-deep-pages"

// changeTracking marks the workflow change that settles, when a
// change-tracking crawl ends, how its pages compare with the previous
// crawl's (SettleChanges).
const changeTracking = "change-tracking"

// settleDeduplication marks the workflow change that deduplicates the
// crawl's result pages as a whole when it ends (SettleDeduplication), so
// that what each keeps does not depend on the order pages were fetched
// in; DeduplicatePages then stores pages whole as they come.
const settleDeduplication = "settle-deduplication"

// endStatusInTemporal marks the workflow change that ends the run of a
// failed or timed-out crawl as a failed workflow, not a completed one.
const endStatusInTemporal = "end-status-in-temporal"

// steerableCrawl marks the workflow change that takes ChangeCrawl updates.
const steerableCrawl = "steerable-crawl"

// webhookEvents marks the workflow change that delivers the events of a
// crawl with a webhook (DeliverWebhooks): while it crawls, after each
// stored batch, and once it has ended until every event is delivered or
// given up.
const webhookEvents = "webhook-events"
