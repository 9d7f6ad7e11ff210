package batch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/durablecrawl/crawler/crawl"
	"github.com/durablecrawl/crawler/pageformats"
)

// padded is a page of about n bytes whose bulk is a comment, so that it
// weighs n in the conversion budget but converts at once.
func padded(n int, text string) []byte {
	page := "<html><body><p>" + text + "</p><!--"
	return []byte(page + strings.Repeat("x", max(n-len(page)-20, 0)) + "--></body></html>")
}

func defaultConversion(t *testing.T) Conversion {
	t.Helper()
	o, err := crawl.ParseRequest([]byte(`{"startUrl":"https://example.com/"}`), crawl.Server{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ConversionOf(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConvertWaitsForTheBudget: a page whose HTML does not fit in what
// is left of the worker's conversion budget waits until the pages
// converting give it back, and a page larger than the whole budget
// converts once it has the budget to itself.
func TestConvertWaitsForTheBudget(t *testing.T) {
	conv := defaultConversion(t)
	held := int64(ConvertBudgetBytes - 1<<20) // pages converting elsewhere
	if err := convertBudget.Acquire(context.Background(), held); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		c, err := Convert("https://example.com/big", padded(2<<20, "Two megabytes"), conv, pageformats.Media{})
		if err != nil {
			t.Error(err)
		}
		done <- c.Markdown
	}()
	select {
	case md := <-done:
		t.Fatalf("a 2 MB page converted while only 1 MB of the budget was free (%q)", md)
	case <-time.After(time.Second):
	}
	convertBudget.Release(held)
	select {
	case md := <-done:
		if !strings.Contains(md, "Two megabytes") {
			t.Errorf("markdown %q", md)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the page did not convert once the budget was free")
	}

	c, err := Convert("https://example.com/huge", padded(ConvertBudgetBytes+(1<<20), "Over the budget"), conv, pageformats.Media{})
	if err != nil || !strings.Contains(c.Markdown, "Over the budget") {
		t.Errorf("a page larger than the budget: %v %q", err, c.Markdown)
	}
	// Ordinary pages convert side by side in what a large page leaves.
	held = ConvertBudgetBytes - 2<<20
	if err := convertBudget.Acquire(context.Background(), held); err != nil {
		t.Fatal(err)
	}
	small := make(chan error, 16)
	for range cap(small) {
		go func() {
			_, err := Convert("https://example.com/small", padded(100<<10, "small"), conv, pageformats.Media{})
			small <- err
		}()
	}
	for range cap(small) {
		select {
		case err := <-small:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("small pages waited while the budget had room for them")
		}
	}
	convertBudget.Release(held)
	if !convertBudget.TryAcquire(ConvertBudgetBytes) {
		t.Fatal("conversions did not give their budget back")
	}
	convertBudget.Release(ConvertBudgetBytes)
}
