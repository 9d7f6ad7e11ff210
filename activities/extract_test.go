package activities

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/extract"
)

const instructions = "the prices"

// extractFixture is a crawl with extraction instructions and a result
// page (id 7) whose markdown the fake LLM splits in chunks.
func extractFixture(chunks ...string) (*fakeStore, *fakeLLM) {
	c := newCrawl(crawl.Options{StartURLs: []string{"https://example.com/"}, Extraction: instructions})
	f := &fakeStore{crawl: c, source: db.ExtractionSource{URL: "https://example.com/shop", Markdown: strings.Join(chunks, "\n")}}
	return f, &fakeLLM{chunks: chunks, answers: map[int]string{}, errs: map[int]error{}}
}

func extractIn(f *fakeStore) ExtractPageInput {
	return ExtractPageInput{CrawlID: f.crawl.ID.String(), PageID: 7}
}

// digestOf is the digest under which chunk i of chunks is saved.
func digestOf(i int, chunks ...string) string {
	return questionDigest(instructions, extract.Chunk{URL: "https://example.com/shop", Index: i, Count: len(chunks), Text: chunks[i]})
}

// TestExtractPage: each chunk's answer is saved as it comes, and the
// combined answer is the page's extraction.
func TestExtractPage(t *testing.T) {
	f, llm := extractFixture("part one", "part two")
	llm.answers[0], llm.answers[1] = `{"prices": [1]}`, "```json\n{\"prices\": [2]}\n```"
	res, err := extractPage(context.Background(), f, llm, extractIn(f))
	if err != nil || res.Failed {
		t.Fatalf("result %+v, %v", res, err)
	}
	if !reflect.DeepEqual(llm.asked, []int{0, 1}) {
		t.Errorf("chunks asked %v, want 0 and 1", llm.asked)
	}
	want := []chunkAnswer{
		{pageID: 7, chunk: 0, chunks: 2, answer: db.ChunkAnswer{Digest: digestOf(0, "part one", "part two"), Answer: llm.answers[0], TokensIn: 10, TokensOut: 2}},
		{pageID: 7, chunk: 1, chunks: 2, answer: db.ChunkAnswer{Digest: digestOf(1, "part one", "part two"), Answer: llm.answers[1], TokensIn: 10, TokensOut: 2}},
	}
	if !reflect.DeepEqual(f.chunkAnswers, want) {
		t.Errorf("chunk answers saved %+v, want %+v", f.chunkAnswers, want)
	}
	if want := []extraction{{pageID: 7, value: `{"prices":[1,2]}`}}; !reflect.DeepEqual(f.extractions, want) {
		t.Errorf("extractions %+v, want %+v", f.extractions, want)
	}
}

// TestExtractPageSavedAnswers: a retry asks only the chunks whose answer
// was not saved for the same question.
func TestExtractPageSavedAnswers(t *testing.T) {
	chunks := []string{"part one", "part two", "part three"}
	f, llm := extractFixture(chunks...)
	f.source.Answers = map[int]db.ChunkAnswer{
		0: {Digest: digestOf(0, chunks...), Answer: `["a"]`},
		1: {Digest: "a digest of other instructions", Answer: `["stale"]`},
	}
	llm.answers[1], llm.answers[2] = `["b"]`, `["c"]`
	if _, err := extractPage(context.Background(), f, llm, extractIn(f)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(llm.asked, []int{1, 2}) {
		t.Errorf("chunks asked %v, want 1 and 2", llm.asked)
	}
	if len(f.chunkAnswers) != 2 || f.chunkAnswers[0].chunk != 1 || f.chunkAnswers[1].chunk != 2 {
		t.Errorf("chunk answers saved %+v, want chunks 1 and 2", f.chunkAnswers)
	}
	if want := []extraction{{pageID: 7, value: `["a","b","c"]`}}; !reflect.DeepEqual(f.extractions, want) {
		t.Errorf("extractions %+v, want %+v", f.extractions, want)
	}
}

// TestExtractPageNothingToAsk: a page whose extraction is done, a crawl
// without instructions or one that ended make no call; an empty page is
// recorded as null without one.
func TestExtractPageNothingToAsk(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(f *fakeStore)
		extract []extraction
	}{
		{name: "done", setup: func(f *fakeStore) { f.source.Done = true }},
		{name: "no instructions", setup: func(f *fakeStore) { f.crawl.Extraction = "" }},
		{name: "crawl ended", setup: func(f *fakeStore) { f.crawl.Status = crawl.StatusAborted }},
		{name: "empty page", setup: func(f *fakeStore) { f.source.Markdown = " \n " },
			extract: []extraction{{pageID: 7, value: "null"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, llm := extractFixture("part one")
			llm.answers[0] = `"x"`
			tt.setup(f)
			res, err := extractPage(context.Background(), f, llm, extractIn(f))
			if err != nil || res.Failed {
				t.Fatalf("result %+v, %v", res, err)
			}
			if llm.split != 0 || len(llm.asked) != 0 || len(f.chunkAnswers) != 0 {
				t.Errorf("split %d times, asked %v, saved %d answers", llm.split, llm.asked, len(f.chunkAnswers))
			}
			if !reflect.DeepEqual(f.extractions, tt.extract) {
				t.Errorf("extractions %+v, want %+v", f.extractions, tt.extract)
			}
		})
	}
}

// TestExtractPageRefused: an LLM error a retry cannot fix records the
// page's extraction as failed, and the activity succeeds with Failed.
func TestExtractPageRefused(t *testing.T) {
	for _, refusal := range []error{
		&extract.Error{Status: 400, Err: errors.New("context too long")},
		errors.New("no such model"),
	} {
		f, llm := extractFixture("part one", "part two")
		llm.answers[0] = `{"prices": [1]}`
		llm.errs[1] = refusal
		res, err := extractPage(context.Background(), f, llm, extractIn(f))
		if err != nil || !res.Failed {
			t.Fatalf("result %+v, %v; want Failed", res, err)
		}
		if len(f.extractions) != 1 || f.extractions[0].value != "" || f.extractions[0].failure != refusal.Error() {
			t.Errorf("extractions %+v, want one failure saying %q", f.extractions, refusal)
		}
		if len(f.chunkAnswers) != 1 {
			t.Errorf("%d chunk answers saved, want the first chunk's", len(f.chunkAnswers))
		}
	}
}

// TestExtractPageErrors: a missing crawl fails for good; a store error
// is returned.
func TestExtractPageErrors(t *testing.T) {
	f, llm := extractFixture("part one")
	_, err := extractPage(context.Background(), &fakeStore{}, llm, extractIn(f))
	wantNonRetryable(t, err)
	down := errors.New("database down")
	for _, method := range []string{"ExtractionSource", "SaveChunkAnswer", "SaveExtraction"} {
		f, llm := extractFixture("part one")
		llm.answers[0] = `"x"`
		f.fail = map[string]error{method: down}
		if _, err := extractPage(context.Background(), f, llm, extractIn(f)); !errors.Is(err, down) {
			t.Errorf("%s failed: error %v, want %v", method, err, down)
		}
	}
}

// TestExtractPageBusy: a rate limit fails the attempt for Temporal to
// retry, after the wait the provider asked for (at most maxRetryAfter),
// keeping the answers already paid for.
func TestExtractPageBusy(t *testing.T) {
	for _, tc := range []struct{ asked, want time.Duration }{
		{20 * time.Second, 20 * time.Second},
		{time.Hour, maxRetryAfter},
	} {
		f, llm := extractFixture("part one", "part two")
		llm.answers[0] = `{"prices": [1]}`
		llm.errs[1] = &extract.Error{Status: 429, Retryable: true, RetryAfter: tc.asked, Err: errors.New("rate limited")}
		_, err := extractPage(context.Background(), f, llm, extractIn(f))
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.NonRetryable() || appErr.NextRetryDelay() != tc.want {
			t.Errorf("asked to wait %s: error %v, want a retryable one with a delay of %s", tc.asked, err, tc.want)
		}
		if len(f.extractions) != 0 || len(f.chunkAnswers) != 1 {
			t.Errorf("asked to wait %s: %d extractions recorded, %d chunk answers saved; want none and the first chunk's", tc.asked, len(f.extractions), len(f.chunkAnswers))
		}
	}
}

const productSchema = `{"type":"object","required":["title","price"],"properties":{"title":{"type":"string"},"price":{"type":"number"}}}`

// TestExtractPageSchema: an answer that does not validate against the
// crawl's schema is asked for again with the validation errors; the
// repaired answer is stored. One that never validates is the page's
// extraction error, and nothing is stored as its value.
func TestExtractPageSchema(t *testing.T) {
	f, llm := extractFixture("part one")
	f.crawl.ExtractionSchema = []byte(productSchema)
	llm.answers[0] = `{"title": "Kettle"}`
	llm.repairs = []string{`{"title": "Kettle", "price": "12"}`, `{"title": "Kettle", "price": 12}`}
	res, err := extractPage(context.Background(), f, llm, extractIn(f))
	if err != nil || res.Failed {
		t.Fatalf("result %+v, %v", res, err)
	}
	if len(llm.repairAsks) != 2 || !strings.Contains(llm.repairAsks[0], `"price"`) || !strings.Contains(llm.repairAsks[0], `{"title":"Kettle"}`) ||
		!strings.Contains(llm.repairAsks[1], "want number") {
		t.Errorf("asked again %d times: %q", len(llm.repairAsks), llm.repairAsks)
	}
	if want := []extraction{{pageID: 7, value: `{"title":"Kettle","price":12}`}}; !reflect.DeepEqual(f.extractions, want) {
		t.Errorf("extractions %+v, want %+v", f.extractions, want)
	}
	// The repairs' tokens are the team's too: no saved answer holds them.
	if f.tokens != 2*12 {
		t.Errorf("the repairs' tokens counted: %d, want 24", f.tokens)
	}

	f, llm = extractFixture("part one")
	f.crawl.ExtractionSchema = []byte(productSchema)
	llm.answers[0] = `"a page about kettles"`
	llm.repairs = []string{`{"title": 1}`, `{"price": 3}`}
	res, err = extractPage(context.Background(), f, llm, extractIn(f))
	if err != nil || !res.Failed || len(f.extractions) != 1 || f.extractions[0].value != "" ||
		!strings.Contains(f.extractions[0].failure, "does not validate against the extraction schema (asked 3 times)") {
		t.Errorf("an answer that never validates: %+v, %v, %+v", res, err, f.extractions)
	}
}
