package crawl

// PageState is where a page of a crawl stands. A page is discovered as
// PageQueued, claimed by one fetch batch, and ends PageStored (a result),
// PageFailed or PageSkipped.
type PageState string

// The states of a page.
const (
	PageQueued    PageState = "queued"
	PageClaimed   PageState = "claimed"
	PageFetched   PageState = "fetched"   // HTML kept, waiting for conversion
	PageConverted PageState = "converted" // markdown made, waiting for deduplication
	PageStored    PageState = "stored"
	PageFailed    PageState = "failed"
	PageSkipped   PageState = "skipped"
)

// Final reports whether a page in state s is done with: a result, a
// failure or a skip.
func (s PageState) Final() bool {
	return s == PageStored || s == PageFailed || s == PageSkipped
}
