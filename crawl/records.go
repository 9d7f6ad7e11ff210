package crawl

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/google/uuid"
)

// The records of a crawl, its pages and its log. Package db stores them:
// each type's name gives its table (Crawl in crawls, Page in pages,
// CrawlLog in crawl_logs) and each field's bun tag its column. Nothing
// here reads those tags; no storage code lives here.

// Crawl is one crawl job: its options as given (Request) and as applied
// (the embedded Options, one column per field as its bun tag says), its
// status and its counters.
type Crawl struct {
	ID      uuid.UUID `bun:"id,pk,type:uuid"`
	TeamID  uuid.UUID `bun:"team_id,type:uuid,notnull"`
	BrandID *string   `bun:"brand_id"`
	// KeyID is the API key that started the crawl (nil: none did, as a
	// schedule's runs): its pages and tokens are counted for it.
	KeyID   *uuid.UUID      `bun:"key_id,type:uuid"`
	Status  Status          `bun:"status,notnull"`
	Request json.RawMessage `bun:"request,type:jsonb,notnull"`

	Options

	// StaticIP is the egress address of a useStaticIps crawl.
	StaticIP     *string    `bun:"static_ip"`
	TotalPages   int        `bun:"total_pages,notnull"`
	WorkflowID   string     `bun:"workflow_id,notnull"`
	ErrorMessage string     `bun:"error_message,notnull"`
	CreatedAt    time.Time  `bun:"created_at,notnull"`
	UpdatedAt    time.Time  `bun:"updated_at,notnull"`
	CompletedAt  *time.Time `bun:"completed_at"`

	// With ChangeTracking: BaselineKey is Options.BaselineKey, the crawl
	// compared with is PreviousCrawlID (nil: none, every page is new), and
	// the Pages counters say what the comparison found once it has ended.
	// ScheduleID names the schedule whose run this crawl is.
	BaselineKey     string     `bun:"baseline_key,notnull"`
	ScheduleID      *uuid.UUID `bun:"schedule_id,type:uuid"`
	PreviousCrawlID *uuid.UUID `bun:"previous_crawl_id,type:uuid"`
	PagesNew        *int       `bun:"pages_new"`
	PagesChanged    *int       `bun:"pages_changed"`
	PagesSame       *int       `bun:"pages_same"`
	PagesRemoved    *int       `bun:"pages_removed"`
	// Paused is set while a change holds the running crawl still.
	Paused bool `bun:"paused,notnull"`
	// CacheKey is Options.CacheKey: a later scrape asking for a page no
	// older than its maxAge may be answered with this crawl's copy of it.
	CacheKey string `bun:"cache_key,notnull"`
}

// NewCrawl builds the record of a new, running crawl.
func NewCrawl(id, teamID uuid.UUID, brandID *string, workflowID string, o Options, request json.RawMessage, now time.Time) *Crawl {
	c := &Crawl{
		ID: id, TeamID: teamID, BrandID: brandID, Status: StatusRunning,
		Request: request, Options: o,
		WorkflowID: workflowID, CreatedAt: now, UpdatedAt: now, CacheKey: o.CacheKey(),
	}
	emptyNilLists(&c.Options)
	return c
}

// emptyNilLists replaces the nil lists of o by empty ones: bun stores a nil
// slice as NULL, and the list columns are NOT NULL. (JSON values, such as
// the extraction schema, stay nil: NULL.)
func emptyNilLists(o *Options) {
	v := reflect.ValueOf(o).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == reflect.TypeFor[[]string]() && f.IsNil() {
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		}
	}
}

// Page is a URL of a crawl: first a frontier entry, then a result.
type Page struct {
	ID            int64     `bun:"id,pk,autoincrement"`
	CrawlID       uuid.UUID `bun:"crawl_id,type:uuid,notnull"`
	URL           string    `bun:"url,notnull"`
	NormalizedURL string    `bun:"normalized_url,notnull"`
	Depth         int       `bun:"depth,notnull"`
	Rank          string    `bun:"rank,notnull"`
	State         PageState `bun:"state,notnull"`
	Batch         *int      `bun:"batch"`
	// Attempts counts the page's failed fetches that were retried;
	// NotBefore is when a page queued again for a retry may be fetched.
	Attempts  int        `bun:"attempts,notnull,default:0"`
	NotBefore *time.Time `bun:"not_before"`
	// Render marks a page that needs the browser engine: static batches
	// leave it for a browser batch.
	Render bool `bun:"render,notnull,default:false"`
	// NoIndex is set when the page asks search engines not to index it.
	NoIndex bool `bun:"noindex,notnull,default:false"`

	FinalURL    *string `bun:"final_url"`
	StatusCode  *int    `bun:"status_code"`
	ContentType *string `bun:"content_type"`
	Title       *string `bun:"title"`
	HTML        *string `bun:"html"`
	Markdown    *string `bun:"markdown"`
	// RawMarkdown is the markdown before deduplication; Markdown is what
	// deduplicateContent left of it.
	RawMarkdown      *string         `bun:"raw_markdown"`
	Fragments        *int            `bun:"fragments"`
	FragmentsRemoved *int            `bun:"fragments_removed"`
	Extraction       json.RawMessage `bun:"extraction,type:jsonb,nullzero"`
	ExtractionError  *string         `bun:"extraction_error"`
	ExtractionMS     *int            `bun:"extraction_ms"`
	ExtractedAt      *time.Time      `bun:"extracted_at"`
	Engine           *string         `bun:"engine"`
	// Formats holds the page's forms besides markdown that the crawl
	// asked for (pageformats.Page as JSON); nil when it asked for none.
	Formats json.RawMessage `bun:"formats,type:jsonb,nullzero"`
	// Words says where an HTML page's words went on the way to its
	// markdown (markdown.Words as JSON); nil for documents and pages
	// converted before it was kept.
	Words json.RawMessage `bun:"words,type:jsonb,nullzero"`
	Error *string         `bun:"error"`
	// Cause is the kind of cause (PageCauseKind) of a failed or skipped
	// page, which Error words; nil on pages saved before it was kept.
	Cause     *string `bun:"cause"`
	Bytes     *int    `bun:"bytes"`
	FetchMS   *int    `bun:"fetch_ms"`
	ConvertMS *int    `bun:"convert_ms"`
	// DocumentPages is a PDF's page count (nil for HTML pages).
	DocumentPages *int `bun:"document_pages"`
	// DuplicateOf is, on a PageDuplicate, the page of the crawl whose
	// content this one repeats.
	DuplicateOf  *int64     `bun:"duplicate_of"`
	DiscoveredAt time.Time  `bun:"discovered_at,nullzero,notnull,default:now()"`
	FetchedAt    *time.Time `bun:"fetched_at"`
	StoredAt     *time.Time `bun:"stored_at"`

	// Kept by change-tracking crawls (see package changes): the response's
	// validators, hashes of the body and of the raw markdown, the page's
	// links, and how it compares with PreviousPageID, its page in the
	// previous crawl.
	ETag           *string         `bun:"etag"`
	LastModified   *string         `bun:"last_modified"`
	BodyHash       *string         `bun:"body_hash"`
	MarkdownHash   *string         `bun:"markdown_hash"`
	Links          json.RawMessage `bun:"links,type:jsonb,nullzero"`
	ChangeStatus   *string         `bun:"change_status"`
	PreviousPageID *int64          `bun:"previous_page_id"`
	// SitemapLastMod is when the crawl's sitemap says the page last
	// changed.
	SitemapLastMod *time.Time `bun:"sitemap_lastmod"`
}

// ChangeCounts are how many result pages of a change-tracking crawl are
// new, changed and same, and how many pages of the previous crawl it
// removed.
type ChangeCounts struct {
	New, Changed, Same, Removed int
}

// CrawlLog is one entry of a crawl's log, as GET /crawl-logs lists it.
type CrawlLog struct {
	ID          int64          `bun:"id,pk,autoincrement"`
	CrawlID     uuid.UUID      `bun:"crawl_id,type:uuid,notnull"`
	TeamID      uuid.UUID      `bun:"team_id,type:uuid,notnull"`
	Key         string         `bun:"key,notnull"`
	Level       string         `bun:"level,notnull"`
	Message     string         `bun:"message,notnull"`
	Description string         `bun:"description,notnull"`
	Data        map[string]any `bun:"data,type:jsonb,notnull"`
	CreatedAt   time.Time      `bun:"created_at,nullzero,notnull,default:clock_timestamp()"`
}
