package crawl

// PageState is where a page of a crawl stands. A page is discovered as
// PageQueued, claimed by one fetch batch, and ends PageStored (a result),
// PageFailed, PageSkipped or PageDuplicate.
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
	// PageDuplicate is a page whose content (its markdown before
	// deduplication) is the same as another page's of the crawl: it is
	// kept once, under that page (Page.DuplicateOf), and this one is no
	// result.
	PageDuplicate PageState = "duplicate"
)

// Final reports whether a page in state s is done with: a result, a
// failure, a skip or a duplicate.
func (s PageState) Final() bool {
	return s == PageStored || s == PageFailed || s == PageSkipped || s == PageDuplicate
}
