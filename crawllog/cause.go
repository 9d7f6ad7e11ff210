package crawllog

import "fmt"

// EndCause is why a crawl ended, as the party that ends it knows it: the
// workflow, the API or the reconciler. Its sentence, in the crawl's last
// entry, is worded here (Sentence). It travels in FinishCrawl's input, so
// it holds what the sentence needs and no page content.
type EndCause struct {
	Kind EndKind `json:",omitempty"`
	// TimeoutSeconds is the crawl's timeout, for EndTimeout.
	TimeoutSeconds int `json:",omitempty"`
	// Detail is the error, for EndInternal.
	Detail string `json:",omitempty"`
}

// EndKind names a kind of ending.
type EndKind string

// The kinds of ending. EndDone (the empty kind) needs no sentence: the
// crawl went through its frontier or stored its limit.
const (
	EndDone           EndKind = ""
	EndTimeout        EndKind = "timeout"
	EndNothingCrawled EndKind = "nothing-crawled"
	EndCancelled      EndKind = "cancelled"
	EndInternal       EndKind = "internal"
	// Ended from outside the workflow: through the API, or by the
	// reconciler from the workflow's state in Temporal.
	EndAbortedByAPI      EndKind = "aborted-by-api"
	EndNotStarted        EndKind = "not-started"
	EndWorkflowMissing   EndKind = "workflow-missing"
	EndWorkflowTerminate EndKind = "workflow-terminated"
	EndWorkflowTimedOut  EndKind = "workflow-timed-out"
	EndWorkflowCancelled EndKind = "workflow-cancelled"
	EndWorkflowFailed    EndKind = "workflow-failed"
	EndWorkflowNoStatus  EndKind = "workflow-no-status"
)

// Because is the cause of kind k.
func Because(k EndKind) EndCause { return EndCause{Kind: k} }

// TimedOut is the cause of a crawl whose timeout of seconds elapsed.
func TimedOut(seconds int) EndCause { return EndCause{Kind: EndTimeout, TimeoutSeconds: seconds} }

// Internal is the cause of a crawl stopped by err.
func Internal(err string) EndCause { return EndCause{Kind: EndInternal, Detail: err} }

// Sentence words the cause for the crawl's last entry ("" for EndDone).
func (c EndCause) Sentence() string {
	switch c.Kind {
	case EndDone:
		return ""
	case EndTimeout:
		return fmt.Sprintf("The crawl's timeout of %d seconds elapsed; the pages crawled so far are kept.", c.TimeoutSeconds)
	case EndNothingCrawled:
		return "No page could be crawled; the page entries above say why."
	case EndCancelled:
		return "The crawl was cancelled."
	case EndInternal:
		return "Internal error: " + c.Detail
	case EndAbortedByAPI:
		return "The crawl was aborted through the API."
	case EndNotStarted:
		return "The crawl's workflow could not be started."
	case EndWorkflowMissing:
		return "The crawl's workflow does not exist."
	case EndWorkflowTerminate:
		return "The crawl's workflow was terminated."
	case EndWorkflowTimedOut:
		return "The crawl's workflow reached its execution timeout; the pages crawled so far are kept."
	case EndWorkflowCancelled:
		return "The crawl's workflow was cancelled."
	case EndWorkflowFailed:
		return "The crawl's workflow failed."
	case EndWorkflowNoStatus:
		return "The crawl's workflow completed without recording a status."
	}
	return fmt.Sprintf("The crawl ended (%s).", c.Kind)
}
