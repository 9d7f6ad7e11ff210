package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/durablecrawl/crawler/crawlflow"
)

// recordDir is where ended crawls' workflow histories are written when
// CRAWLER_RECORD_HISTORIES names a folder: the replay test of the
// workflows package reads them from workflows/testdata/histories, so that
// a change that would break crawls in flight fails there. Record with
//
//	CRAWLER_RECORD_HISTORIES=$PWD/workflows/testdata/histories make test
//
// (narrowed with go test -run to the crawls worth keeping).
var recordDir = os.Getenv("CRAWLER_RECORD_HISTORIES")

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// recordHistories writes every run of the crawl's workflow, each to a
// file named after the test, the crawl's status and the run's place.
func recordHistories(t testing.TB, crawlID, status string) {
	t.Helper()
	if recordDir == "" {
		return
	}
	var runs []*historypb.History
	for runID := ""; ; {
		h := runHistory(t, crawlflow.WorkflowID(crawlID), runID)
		runs = append([]*historypb.History{h}, runs...)
		started := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
		if runID = started.GetContinuedExecutionRunId(); runID == "" {
			break
		}
	}
	base := strings.Trim(unsafeName.ReplaceAllString(t.Name(), "-"), "-") + "-" + status
	for i, h := range runs {
		raw, err := protojson.MarshalOptions{Indent: " "}.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		name := base + ".json"
		if len(runs) > 1 {
			name = fmt.Sprintf("%s-run%02d.json", base, i+1)
		}
		if err := os.WriteFile(filepath.Join(recordDir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// recordWorkflowHistory writes one workflow run's history h (a workflow
// other than a crawl's, such as a schedule's run) as the test's, named by
// what.
func recordWorkflowHistory(t testing.TB, h *historypb.History, what string) {
	t.Helper()
	if recordDir == "" {
		return
	}
	raw, err := protojson.MarshalOptions{Indent: " "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Trim(unsafeName.ReplaceAllString(t.Name(), "-"), "-") + "-" + what + ".json"
	if err := os.WriteFile(filepath.Join(recordDir, name), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
