// Package changes says how a page of a crawl compares with the same page
// of an earlier crawl: its status (new, changed, same, removed), a unified
// diff of its markdown, and which fields of its extraction changed.
package changes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
)

// Status is how a page compares with the previous crawl.
type Status string

// The statuses of a page. A page of the previous crawl that this one no
// longer has (gone, answering 404 or 410, or no longer linked) is
// Removed; every other status belongs to a result page.
const (
	New     Status = "new"
	Changed Status = "changed"
	Same    Status = "same"
	Removed Status = "removed"
)

// Hash is the digest by which a body or a markdown is compared.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// contextLines is how many unchanged lines a diff shows around a change.
const contextLines = 3

// Diff is a unified diff of a page's markdown, from previous to current,
// as git shows one (without its index line); "" when they are equal.
func Diff(previous, current string) string {
	if previous == current {
		return ""
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(previous), B: lines(current), FromFile: "a/page.md", ToFile: "b/page.md", Context: contextLines,
	})
	if err != nil || text == "" {
		return ""
	}
	return "diff --git a/page.md b/page.md\n" + text
}

// lines splits s into lines that keep their ends, the last one given
// one when it has none, so that a diff's lines are whole.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	} else {
		out[len(out)-1] += "\n"
	}
	return out
}

// FileDiff is a diff as a structure (one file: the page), in the shape
// of the parse-diff library Firecrawl answers with.
type FileDiff struct {
	Files []File `json:"files"`
}

// File is the page's changes in chunks.
type File struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Chunks    []Chunk `json:"chunks"`
	Additions int     `json:"additions"`
	Deletions int     `json:"deletions"`
}

// Chunk is one hunk of a diff: its header and its lines.
type Chunk struct {
	Content  string `json:"content"`
	OldStart int    `json:"oldStart"`
	OldLines int    `json:"oldLines"`
	NewStart int    `json:"newStart"`
	NewLines int    `json:"newLines"`
	Changes  []Line `json:"changes"`
}

// Line is a line of a chunk: added, deleted, or unchanged (normal), with
// its line numbers.
type Line struct {
	Type    string `json:"type"`
	Content string `json:"content"`
	Add     bool   `json:"add,omitempty"`
	Del     bool   `json:"del,omitempty"`
	Normal  bool   `json:"normal,omitempty"`
	Ln      int    `json:"ln,omitempty"`
	Ln1     int    `json:"ln1,omitempty"`
	Ln2     int    `json:"ln2,omitempty"`
}

// Structured is Diff as a structure; nil when the two are equal.
func Structured(previous, current string) *FileDiff {
	if previous == current {
		return nil
	}
	a, b := lines(previous), lines(current)
	m := difflib.NewMatcher(a, b)
	file := File{From: "page.md", To: "page.md"}
	for _, group := range m.GetGroupedOpCodes(contextLines) {
		first, last := group[0], group[len(group)-1]
		c := Chunk{OldStart: first.I1 + 1, OldLines: last.I2 - first.I1, NewStart: first.J1 + 1, NewLines: last.J2 - first.J1}
		c.Content = fmt.Sprintf("@@ -%d,%d +%d,%d @@", c.OldStart, c.OldLines, c.NewStart, c.NewLines)
		for _, op := range group {
			if op.Tag == 'e' {
				for i := op.I1; i < op.I2; i++ {
					j := op.J1 + i - op.I1
					c.Changes = append(c.Changes, Line{Type: "normal", Normal: true, Content: " " + trimEnd(a[i]), Ln1: i + 1, Ln2: j + 1})
				}
				continue
			}
			if op.Tag == 'r' || op.Tag == 'd' {
				for i := op.I1; i < op.I2; i++ {
					c.Changes = append(c.Changes, Line{Type: "del", Del: true, Content: "-" + trimEnd(a[i]), Ln: i + 1})
					file.Deletions++
				}
			}
			if op.Tag == 'r' || op.Tag == 'i' {
				for j := op.J1; j < op.J2; j++ {
					c.Changes = append(c.Changes, Line{Type: "add", Add: true, Content: "+" + trimEnd(b[j]), Ln: j + 1})
					file.Additions++
				}
			}
		}
		file.Chunks = append(file.Chunks, c)
	}
	return &FileDiff{Files: []File{file}}
}

func trimEnd(s string) string { return strings.TrimSuffix(s, "\n") }

// FieldChange is a field of an extraction that changed: its value in the
// previous crawl and now (null where it was or is missing).
type FieldChange struct {
	Previous any `json:"previous"`
	Current  any `json:"current"`
}

// Fields compares two extractions (JSON values) field by field: the
// fields of objects, by their dotted paths, that differ (an array is one
// field). A value that is not an object is the field "". Nil when nothing
// differs or either is not JSON.
func Fields(previous, current json.RawMessage) map[string]FieldChange {
	var p, c any
	if json.Unmarshal(previous, &p) != nil || json.Unmarshal(current, &c) != nil {
		return nil
	}
	out := map[string]FieldChange{}
	compare("", p, c, out)
	if len(out) == 0 {
		return nil
	}
	return out
}

func compare(path string, p, c any, out map[string]FieldChange) {
	po, pok := p.(map[string]any)
	co, cok := c.(map[string]any)
	if !pok || !cok {
		if !reflect.DeepEqual(p, c) {
			out[path] = FieldChange{Previous: p, Current: c}
		}
		return
	}
	keys := map[string]bool{}
	for k := range po {
		keys[k] = true
	}
	for k := range co {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		sub := k
		if path != "" {
			sub = path + "." + k
		}
		compare(sub, po[k], co[k], out)
	}
}

// View is how a page compares with its page in the previous crawl, as
// answers show it.
type View struct {
	Status Status
	// PreviousAt is when the previous crawl fetched the page; nil for a
	// new page.
	PreviousAt *time.Time
	// Diff and Structured, on a changed page, are the diff of its raw
	// markdown (before deduplication) as text and as a structure; Fields,
	// on a changed page with an extraction, the fields that changed.
	Diff       string
	Structured *FileDiff
	Fields     map[string]FieldChange
}

// Describe builds the view of a page with status whose previous page was
// fetched at previousAt: for a changed page, from both markdowns and
// both extractions.
func Describe(status Status, previousAt *time.Time, previousMarkdown, markdown string, previousExtraction, extraction json.RawMessage) View {
	v := View{Status: status, PreviousAt: previousAt}
	if status != Changed {
		return v
	}
	v.Diff, v.Structured = Diff(previousMarkdown, markdown), Structured(previousMarkdown, markdown)
	if len(previousExtraction) > 0 && len(extraction) > 0 {
		v.Fields = Fields(previousExtraction, extraction)
	}
	return v
}
