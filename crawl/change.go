package crawl

import (
	"fmt"
	"strings"
)

// Change is a change to a running crawl: a new page limit (never below
// the pages it has stored), path rules added to its excludePaths, a new
// number of pages in flight, or a pause or resume. Nil and empty fields
// change nothing. By names who asked for it (the API key's prefix, or
// "temporal" for a change sent from Temporal itself).
type Change struct {
	MaxResults         *int     `json:"maxResults,omitempty"`
	ExcludePaths       []string `json:"excludePaths,omitempty"`
	MaxConcurrentPages *int     `json:"maxConcurrentPages,omitempty"`
	Paused             *bool    `json:"paused,omitempty"`
	By                 string   `json:"by,omitempty"`
}

// MaxConcurrentPages is the most pages in flight an option may ask for.
const MaxConcurrentPages = 1000

// Empty reports whether c changes nothing.
func (c Change) Empty() bool {
	return c.MaxResults == nil && len(c.ExcludePaths) == 0 && c.MaxConcurrentPages == nil && c.Paused == nil
}

// Check reports what is wrong with c for a crawl that has stored stored
// pages, on a server that allows at most maxConcurrency pages in flight
// (0: no bound known), by field.
func (c Change) Check(stored, maxConcurrency int) []FieldError {
	var bad []FieldError
	if c.Empty() {
		bad = append(bad, FieldError{Field: "body", Message: "give maxResults, excludePaths, maxConcurrentPages or paused"})
	}
	if c.MaxResults != nil {
		switch {
		case *c.MaxResults < 1 || *c.MaxResults > MaxResultsCurrent:
			bad = append(bad, FieldError{Field: "maxResults", Message: fmt.Sprintf("must be an integer from 1 to %d", MaxResultsCurrent)})
		case *c.MaxResults < stored:
			bad = append(bad, FieldError{Field: "maxResults", Message: fmt.Sprintf("must be at least %d: the crawl has stored that many pages", stored)})
		}
	}
	if maxConcurrency <= 0 || maxConcurrency > MaxConcurrentPages {
		maxConcurrency = MaxConcurrentPages // the option's own bound
	}
	if c.MaxConcurrentPages != nil && (*c.MaxConcurrentPages < 1 || *c.MaxConcurrentPages > maxConcurrency) {
		bad = append(bad, FieldError{Field: "maxConcurrentPages", Message: fmt.Sprintf("must be an integer from 1 to %d on this server", maxConcurrency)})
	}
	if len(c.ExcludePaths) > MaxPatterns {
		bad = append(bad, FieldError{Field: "excludePaths", Message: fmt.Sprintf("at most %d patterns", MaxPatterns)})
	}
	for i, p := range c.ExcludePaths {
		if strings.TrimSpace(p) == "" {
			bad = append(bad, FieldError{Field: fmt.Sprintf("excludePaths[%d]", i), Message: "must not be empty"})
		}
	}
	return bad
}
