package db_test

import (
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/crawl"
)

// TestRecordTables: the crawl, page and log records live in package crawl
// with no storage code; bun names their tables after the types. Their
// tables and aliases must stay those of the migrations and of the queries
// that name them.
func TestRecordTables(t *testing.T) {
	for _, tc := range []struct {
		model any
		want  string
	}{
		{(*crawl.Crawl)(nil), `FROM "crawls" AS "crawl"`},
		{(*crawl.Page)(nil), `FROM "pages" AS "page"`},
		{(*crawl.CrawlLog)(nil), `FROM "crawl_logs" AS "crawl_log"`},
	} {
		if q := store.DB().NewSelect().Model(tc.model).String(); !strings.Contains(q, tc.want) {
			t.Errorf("%T: %s, want %s", tc.model, q, tc.want)
		}
	}
}
