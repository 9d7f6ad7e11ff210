// Package pageaction holds page actions: the steps a browser takes on a
// page, in order, before the page is read (Firecrawl's actions: wait,
// click, write, press, scroll, screenshot, scrape, executeJavascript,
// pdf), how a request's list of them is checked, and what they give back.
// It does no I/O: package browser runs them.
package pageaction

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The action types.
const (
	Wait              = "wait"
	Click             = "click"
	Write             = "write"
	Press             = "press"
	Scroll            = "scroll"
	Screenshot        = "screenshot"
	Scrape            = "scrape"
	ExecuteJavascript = "executeJavascript"
	PDF               = "pdf"
)

// Limits of a list of actions, Firecrawl's: at most MaxActions, and at
// most MaxTotalWait of waiting in all (the page's waitFor, each wait's
// milliseconds, and a second for each wait for a selector).
const (
	MaxActions   = 50
	MaxTotalWait = 60 * time.Second
	// selectorWaitCounts is what a wait for a selector counts towards
	// MaxTotalWait.
	selectorWaitCounts = time.Second
)

// Viewport bounds, Firecrawl's (an 8K screen).
const (
	MaxViewportWidth  = 7680
	MaxViewportHeight = 4320
)

// PDFFormats are the paper sizes a pdf action may ask for.
var PDFFormats = []string{"A0", "A1", "A2", "A3", "A4", "A5", "A6", "Letter", "Legal", "Tabloid", "Ledger"}

// Action is one step. Which fields count depends on Type:
//   - wait: Milliseconds, or Selector (until an element matches and shows);
//   - click: Selector, the first element matching it, or every one with All;
//   - write: Text, typed into the element that has the focus;
//   - press: Key (a key name: Enter, Tab, ArrowDown, a);
//   - scroll: Direction (up or down, by a screen), of the page or of the
//     element matching Selector;
//   - screenshot: FullPage, Quality (JPEG, 1 to 100), Viewport;
//   - scrape: the page's address and HTML as they are at that moment;
//   - executeJavascript: Script, run in the page; what it returns is kept;
//   - pdf: the page printed (Format, Landscape, Scale).
type Action struct {
	Type         string    `json:"type"`
	Milliseconds int       `json:"milliseconds,omitempty"`
	Selector     string    `json:"selector,omitempty"`
	All          bool      `json:"all,omitempty"`
	Text         string    `json:"text,omitempty"`
	Key          string    `json:"key,omitempty"`
	Direction    string    `json:"direction,omitempty"`
	FullPage     bool      `json:"fullPage,omitempty"`
	Quality      int       `json:"quality,omitempty"`
	Viewport     *Viewport `json:"viewport,omitempty"`
	Script       string    `json:"script,omitempty"`
	Landscape    bool      `json:"landscape,omitempty"`
	Scale        float64   `json:"scale,omitempty"`
	Format       string    `json:"format,omitempty"`
}

// Viewport is a screen's size in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// String names the action for a message: its place and type, and what it
// aims at.
func (a Action) String() string {
	switch {
	case a.Selector != "":
		return fmt.Sprintf("%s %q", a.Type, a.Selector)
	case a.Type == Wait:
		return fmt.Sprintf("wait %d ms", a.Milliseconds)
	case a.Type == Press:
		return fmt.Sprintf("press %q", a.Key)
	}
	return a.Type
}

// Problem is what is wrong with a list of actions: Field names the entry
// and its field ("[2].selector", or "" for the whole list).
type Problem struct {
	Field   string
	Message string
}

// Parse reads and checks a request's list of actions (raw, JSON) as
// Firecrawl's schema has them; waitFor (milliseconds) is the page's own
// wait, which counts towards MaxTotalWait. Defaults are filled in
// (direction down, format Letter, scale 1). Fields an action does not
// have are left aside, as Firecrawl's schema leaves them. An empty list
// (or none) is no actions.
func Parse(raw json.RawMessage, waitFor int) ([]Action, []Problem) {
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, []Problem{{Message: "must be a list of actions"}}
	}
	var bad []Problem
	if len(list) > MaxActions {
		bad = append(bad, Problem{Message: fmt.Sprintf("holds %d actions: at most %d", len(list), MaxActions)})
	}
	out := make([]Action, 0, len(list))
	total := time.Duration(waitFor) * time.Millisecond
	for i, item := range list {
		a, problems := parseOne(item)
		for _, p := range problems {
			p.Field = fmt.Sprintf("[%d]%s", i, p.Field)
			bad = append(bad, p)
		}
		if a.Type == Wait {
			if a.Selector != "" {
				total += selectorWaitCounts
			} else {
				total += time.Duration(a.Milliseconds) * time.Millisecond
			}
		}
		out = append(out, a)
	}
	if total > MaxTotalWait {
		bad = append(bad, Problem{Message: fmt.Sprintf("wait %s in all (waitFor, each wait's milliseconds, and a second for each wait for a selector): at most %s",
			total, MaxTotalWait)})
	}
	if len(bad) > 0 {
		return nil, bad
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// fields are an action's members, each as sent.
type fields map[string]json.RawMessage

// parseOne reads one action.
func parseOne(raw json.RawMessage) (Action, []Problem) {
	var f fields
	if err := json.Unmarshal(raw, &f); err != nil || f == nil {
		return Action{}, []Problem{{Message: "must be an object with a type"}}
	}
	var bad []Problem
	fail := func(field, format string, args ...any) {
		bad = append(bad, Problem{Field: "." + field, Message: fmt.Sprintf(format, args...)})
	}
	var a Action
	if !f.str("type", &a.Type) {
		fail("type", "must be one of %s", strings.Join(types, ", "))
		return a, bad
	}
	switch a.Type {
	case Wait:
		hasMS, hasSel := f.has("milliseconds"), f.has("selector")
		if hasMS == hasSel {
			fail("milliseconds", "give either milliseconds or selector, not both")
		}
		if hasMS && !f.positiveInt("milliseconds", &a.Milliseconds, 0) {
			fail("milliseconds", "must be a whole number above 0")
		}
		if hasSel && !f.nonEmpty("selector", &a.Selector) {
			fail("selector", "must be a CSS selector")
		}
	case Click:
		if !f.nonEmpty("selector", &a.Selector) {
			fail("selector", "is required: a CSS selector")
		}
		if f.has("all") && !f.boolean("all", &a.All) {
			fail("all", "must be true or false")
		}
	case Write:
		if !f.str("text", &a.Text) {
			fail("text", "is required: the text to type")
		}
	case Press:
		if !f.nonEmpty("key", &a.Key) {
			fail("key", "is required: a key name (Enter, Tab, ArrowDown, a)")
		}
	case Scroll:
		a.Direction = "down"
		if f.has("direction") && (!f.str("direction", &a.Direction) || a.Direction != "up" && a.Direction != "down") {
			fail("direction", "must be up or down")
		}
		if f.has("selector") && !f.nonEmpty("selector", &a.Selector) {
			fail("selector", "must be a CSS selector")
		}
	case Screenshot:
		shotFields(f, &a, fail)
	case Scrape:
	case ExecuteJavascript:
		if !f.nonEmpty("script", &a.Script) {
			fail("script", "is required: the JavaScript to run in the page")
		}
	case PDF:
		a.Format, a.Scale = "Letter", 1
		if f.has("landscape") && !f.boolean("landscape", &a.Landscape) {
			fail("landscape", "must be true or false")
		}
		if f.has("format") && (!f.str("format", &a.Format) || !slices.Contains(PDFFormats, a.Format)) {
			fail("format", "must be one of %s", strings.Join(PDFFormats, ", "))
		}
		if f.has("scale") && (!f.number("scale", &a.Scale) || a.Scale < 0.1 || a.Scale > 2) {
			fail("scale", "must be a number from 0.1 to 2")
		}
	default:
		fail("type", "%q is not an action: one of %s", a.Type, strings.Join(types, ", "))
	}
	return a, bad
}

// shotFields reads a screenshot's fullPage, quality and viewport into a.
func shotFields(f fields, a *Action, fail func(field, format string, args ...any)) {
	if f.has("fullPage") && !f.boolean("fullPage", &a.FullPage) {
		fail("fullPage", "must be true or false")
	}
	if f.has("quality") {
		var q float64
		if !f.number("quality", &q) || q < 1 || q > 100 {
			fail("quality", "must be a number from 1 to 100")
		} else {
			a.Quality = int(math.Round(q))
		}
	}
	if f.has("viewport") {
		v, msg := ParseViewport(f["viewport"])
		if msg != "" {
			fail("viewport", "%s", msg)
		}
		a.Viewport = v
	}
}

// ParseViewport reads a screenshot's viewport ({width, height}), or says
// what is wrong with it.
func ParseViewport(raw json.RawMessage) (*Viewport, string) {
	if t := strings.TrimSpace(string(raw)); t == "null" || t == "" {
		return nil, ""
	}
	var f fields
	if json.Unmarshal(raw, &f) != nil || f == nil {
		return nil, "must be {width, height}"
	}
	var v Viewport
	if !f.positiveInt("width", &v.Width, MaxViewportWidth) || !f.positiveInt("height", &v.Height, MaxViewportHeight) {
		return nil, fmt.Sprintf("width and height must be whole numbers, at most %d by %d", MaxViewportWidth, MaxViewportHeight)
	}
	return &v, ""
}

// types are the action types, for messages.
var types = []string{Wait, Click, Write, Press, Scroll, Screenshot, Scrape, ExecuteJavascript, PDF}

func (f fields) has(name string) bool {
	v, ok := f[name]
	return ok && strings.TrimSpace(string(v)) != "null"
}

func (f fields) str(name string, dst *string) bool {
	return f.has(name) && json.Unmarshal(f[name], dst) == nil
}

func (f fields) nonEmpty(name string, dst *string) bool {
	return f.str(name, dst) && strings.TrimSpace(*dst) != ""
}

func (f fields) boolean(name string, dst *bool) bool {
	return json.Unmarshal(f[name], dst) == nil
}

func (f fields) number(name string, dst *float64) bool {
	return f.has(name) && json.Unmarshal(f[name], dst) == nil && !math.IsInf(*dst, 0) && !math.IsNaN(*dst)
}

// positiveInt reads a whole number above 0 (and at most max, when max is
// above 0); 3.0 is whole, as JavaScript's numbers are.
func (f fields) positiveInt(name string, dst *int, max int) bool {
	var n float64
	if !f.number(name, &n) || n != math.Trunc(n) || n < 1 || n > math.MaxInt32 || max > 0 && n > float64(max) {
		return false
	}
	*dst = int(n)
	return true
}

// Encode is the list as stored: nil for none.
func Encode(list []Action) json.RawMessage {
	if len(list) == 0 {
		return nil
	}
	b, _ := json.Marshal(list) // plain values: it cannot fail
	return b
}

// Decode reads a stored list (Encode's).
func Decode(raw json.RawMessage) ([]Action, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []Action
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("stored actions: %w", err)
	}
	return list, nil
}

// Failed is the error of an action that could not be done: its place in
// the list (from 0), the action, and why.
type Failed struct {
	Index  int
	Action Action
	Reason string
}

func (e *Failed) Error() string {
	return fmt.Sprintf("action %d (%s) failed: %s", e.Index, e.Action, e.Reason)
}

// Results are what a page's actions gave back, in the order they ran.
// Screenshots are JPEG images, PDFs the printed pages.
type Results struct {
	Screenshots       [][]byte
	Scrapes           []Scraped
	JavascriptReturns []Return
	PDFs              [][]byte
}

// Bytes is about how much memory r holds.
func (r *Results) Bytes() int {
	if r == nil {
		return 0
	}
	n := 0
	for _, b := range r.Screenshots {
		n += len(b)
	}
	for _, b := range r.PDFs {
		n += len(b)
	}
	for _, s := range r.Scrapes {
		n += len(s.HTML) + len(s.URL)
	}
	for _, j := range r.JavascriptReturns {
		n += len(j.Value)
	}
	return n
}

// Scraped is the page as a scrape action found it.
type Scraped struct {
	URL  string `json:"url"`
	HTML string `json:"html"`
}

// Return is what an executeJavascript action's script returned: its
// JavaScript type (typeof) and its value as JSON.
type Return struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Document is the actions' part of a page's stored formats, and of
// Firecrawl's document: the screenshots' and PDFs' addresses (paths on
// the API until an answer makes them absolute), the scrapes and the
// scripts' returns.
type Document struct {
	Screenshots       []string  `json:"screenshots"`
	Scrapes           []Scraped `json:"scrapes"`
	JavascriptReturns []Return  `json:"javascriptReturns"`
	PDFs              []string  `json:"pdfs"`
}

// Absolute is d with its paths prefixed by base (the API's address).
func (d *Document) Absolute(base string) *Document {
	if d == nil {
		return nil
	}
	out := *d
	out.Screenshots = prefixed(base, d.Screenshots)
	out.PDFs = prefixed(base, d.PDFs)
	for _, l := range []*[]Scraped{&out.Scrapes} {
		if *l == nil {
			*l = []Scraped{}
		}
	}
	if out.JavascriptReturns == nil {
		out.JavascriptReturns = []Return{}
	}
	return &out
}

func prefixed(base string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = base + p
	}
	return out
}
