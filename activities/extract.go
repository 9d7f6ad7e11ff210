package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/crawllog"
	"github.com/durablecrawl/crawler/db"
	"github.com/durablecrawl/crawler/extract"
	"github.com/durablecrawl/crawler/schema"
)

// extractStore is what ExtractPage needs of the database.
type extractStore interface {
	crawlLoader
	ExtractionSource(ctx context.Context, crawlID uuid.UUID, pageID int64) (db.ExtractionSource, error)
	SaveChunkAnswer(ctx context.Context, pageID int64, chunk, chunks int, a db.ChunkAnswer) error
	SaveExtraction(ctx context.Context, crawlID uuid.UUID, pageID int64, value json.RawMessage, failure string, ms int) error
	CountTokens(ctx context.Context, crawlID uuid.UUID, in, out int64) error
}

// llmExtractor is what ExtractPage needs of the model.
type llmExtractor interface {
	Split(pageURL, instructions, markdown string) ([]extract.Chunk, error)
	Ask(ctx context.Context, instructions string, c extract.Chunk) (string, extract.Tokens, error)
}

var _ llmExtractor = (*extract.Extractor)(nil)

// ExtractPageInput names a result page to run the crawl's extraction
// instructions on.
type ExtractPageInput struct {
	CrawlID string
	PageID  int64
}

// ExtractPageResult says how the page's extraction ended.
type ExtractPageResult struct {
	// Failed is set when the extraction was given up; the page stays a
	// result, with the reason recorded and logged.
	Failed bool `json:",omitempty"`
}

// maxRetryAfter caps the wait a rate-limited provider asks for.
const maxRetryAfter = 5 * time.Minute

// ExtractPage sends a result page's markdown (before deduplication: the
// page whole) with the crawl's extraction instructions to the LLM, in
// chunks that fit the model's context, and stores the combined answer on
// the page. It runs on the LLM task queue, whose rate limit and
// concurrency bound the calls. With an extraction schema, the model is
// asked for JSON that validates against it; an answer that does not is
// asked for again (schemaRepairs times) with the validation errors, then
// recorded as the page's extraction error, never stored as its value.
//
// Rate limits (429), server errors (5xx) and timeouts fail the attempt,
// so that Temporal retries it with backoff (after the provider's
// Retry-After when it gave one); on the last attempt, and for any other
// refusal (4xx), the page's extraction is recorded as failed and the
// crawl goes on. Each chunk's answer is saved as it arrives, and a page
// whose extraction is recorded is not sent again: a retry pays only for
// what it did not get.
func (a *Activities) ExtractPage(ctx context.Context, in ExtractPageInput) (ExtractPageResult, error) {
	if a.LLM == nil {
		return ExtractPageResult{}, nonRetryable(errors.New("this worker has no LLM: set CRAWLER_LLM_PROVIDER and CRAWLER_LLM_MODEL"))
	}
	return extractPage(ctx, a.Store, a.LLM, in)
}

func extractPage(ctx context.Context, store extractStore, llm llmExtractor, in ExtractPageInput) (ExtractPageResult, error) {
	c, o, err := loadCrawl(ctx, store, in.CrawlID)
	if err != nil {
		return ExtractPageResult{}, err
	}
	if c.Status.Terminal() || o.Extraction == "" {
		return ExtractPageResult{}, nil
	}
	src, err := store.ExtractionSource(ctx, c.ID, in.PageID)
	if err != nil || src.Done {
		return ExtractPageResult{}, err
	}
	began := time.Now()
	elapsed := func() int { return int(time.Since(began) / time.Millisecond) }
	fail := func(why crawl.ExtractionCause) (ExtractPageResult, error) {
		return ExtractPageResult{Failed: true}, store.SaveExtraction(ctx, c.ID, in.PageID, nil, crawllog.ExtractionFailure(why), elapsed())
	}
	if strings.TrimSpace(src.Markdown) == "" {
		// Nothing to read: no call is paid for.
		return ExtractPageResult{}, store.SaveExtraction(ctx, c.ID, in.PageID, []byte("null"), "", 0)
	}
	instructions := o.Extraction
	var sch *schema.Schema
	if len(o.ExtractionSchema) > 0 {
		if sch, err = schema.Compile(o.ExtractionSchema); err != nil {
			return fail(crawl.ExtractionCause{Kind: crawl.ExtractionBadSchema, Detail: err.Error()})
		}
		instructions += schemaInstructions + string(o.ExtractionSchema)
	}
	chunks, err := llm.Split(src.URL, instructions, src.Markdown)
	if err != nil {
		return fail(crawl.ExtractionCause{Kind: crawl.ExtractionRefused, Detail: err.Error()})
	}

	answers := make([]string, len(chunks))
	var done atomic.Int64 // parts answered, reported by the heartbeat
	defer keepAlive(ctx, func() any { return done.Load() })()
	for i, ch := range chunks {
		digest := questionDigest(instructions, ch)
		if saved, ok := src.Answers[i]; ok && saved.Digest == digest {
			answers[i] = saved.Answer
			done.Add(1)
			continue
		}
		answer, tokens, err := llm.Ask(ctx, instructions, ch)
		if err != nil || ctx.Err() != nil {
			return askFailed(ctx, err, fmt.Sprintf("chunk %d of %d", i+1, len(chunks)), fail)
		}
		if err := store.SaveChunkAnswer(ctx, in.PageID, i, len(chunks),
			db.ChunkAnswer{Digest: digest, Answer: answer, TokensIn: tokens.In, TokensOut: tokens.Out}); err != nil {
			return ExtractPageResult{}, err
		}
		answers[i] = answer
		done.Add(1)
	}
	value := extract.Combine(answers)
	for round := 1; sch != nil; round++ {
		invalid := sch.Validate(value)
		if invalid == nil {
			break
		}
		if round > schemaRepairs {
			return fail(crawl.ExtractionCause{Kind: crawl.ExtractionInvalid, Attempts: round, Detail: invalid.Error()})
		}
		// Asked again with what was wrong: the first part of the page
		// and the earlier answer, which holds what the other parts gave.
		again := instructions + fmt.Sprintf(repairInstructions, cut(string(value), maxRepairEcho), invalid)
		parts, err := llm.Split(src.URL, again, src.Markdown)
		if err != nil {
			return fail(crawl.ExtractionCause{Kind: crawl.ExtractionRefused, Detail: err.Error()})
		}
		answer, tokens, err := llm.Ask(ctx, again, parts[0])
		if err != nil || ctx.Err() != nil {
			return askFailed(ctx, err, fmt.Sprintf("schema repair %d", round), fail)
		}
		if err := store.CountTokens(ctx, c.ID, tokens.In, tokens.Out); err != nil {
			return ExtractPageResult{}, err
		}
		value = extract.Combine([]string{answer})
	}
	return ExtractPageResult{}, store.SaveExtraction(ctx, c.ID, in.PageID, value, "", elapsed())
}

// The words added to a crawl's instructions when it has a schema, and to
// ask again after an answer that does not validate against it.
const (
	schemaInstructions = "\n\nAnswer with JSON only: one value that validates against this JSON Schema:\n"
	repairInstructions = "\n\nAn earlier answer for this page was:\n%s\nIt does not validate against the schema:\n%v\nAnswer again, with JSON that validates."
)

// schemaRepairs is how many times an answer that does not validate
// against the crawl's schema is asked for again before the page's
// extraction is recorded as failed; maxRepairEcho bounds the earlier
// answer quoted back to the model.
const (
	schemaRepairs = 2
	maxRepairEcho = 4000
)

// cut shortens s to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " …"
}

// askFailed turns a failed call (what names it) into the activity's
// outcome: a cancellation ends it, a retryable failure fails the attempt
// (Temporal retries it, after the provider's Retry-After) until the last
// one, which records the page's extraction as failed, as any other
// refusal does (fail).
func askFailed(ctx context.Context, err error, what string, fail func(crawl.ExtractionCause) (ExtractPageResult, error)) (ExtractPageResult, error) {
	if ctx.Err() != nil {
		return ExtractPageResult{}, ctx.Err()
	}
	var llmErr *extract.Error
	switch {
	case errors.As(err, &llmErr) && llmErr.Retryable && !lastAttempt(ctx):
		return ExtractPageResult{}, temporal.NewApplicationErrorWithOptions(
			fmt.Sprintf("%s: %v", what, err), "LLMUnavailable",
			temporal.ApplicationErrorOptions{NextRetryDelay: min(llmErr.RetryAfter, maxRetryAfter)})
	case errors.As(err, &llmErr) && llmErr.Retryable:
		return fail(crawl.ExtractionCause{Kind: crawl.ExtractionGaveUp, Attempts: int(activity.GetInfo(ctx).Attempt), Detail: err.Error()})
	default:
		return fail(crawl.ExtractionCause{Kind: crawl.ExtractionRefused, Detail: err.Error()})
	}
}

// questionDigest identifies what a call asks: the instructions, the
// chunk's text and its place in the page. A saved answer is reused only for
// the same question.
func questionDigest(instructions string, c extract.Chunk) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d/%d\x00%s\x00%s", c.Index, c.Count, instructions, c.Text)
	return hex.EncodeToString(h.Sum(nil))
}

// lastAttempt reports whether the running activity will not be retried.
func lastAttempt(ctx context.Context) bool {
	if !activity.IsActivity(ctx) {
		return false
	}
	info := activity.GetInfo(ctx)
	return info.RetryPolicy != nil && info.RetryPolicy.MaximumAttempts > 0 && info.Attempt >= info.RetryPolicy.MaximumAttempts
}
