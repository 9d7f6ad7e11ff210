package main

import (
	"fmt"
	"hash/fnv"
	"os"
)

// Every page of every set belongs to one of two halves: the tuning half,
// the pages a developer looks at (-worst, -diff, -versus) to change the
// extraction rules, and the held-out half, which shows whether a change
// helps pages it was not made for. A page's half is fixed by its name as
// its set names it (the comparison and mock sets' file name, the
// readability test folder's name): the FNV-1a 32-bit hash of the name,
// even for the tuning half, odd for the held-out one. A hash rather than
// the order of the pages, so that a page keeps its half when a set gains
// or loses pages in a new version of its module.
const (
	tuning  = "tuning"
	heldOut = "held-out"
	both    = "both"
)

// half is the -half flag: the half scored and listed, or both.
var half = both

// halfOf is the half the page named name belongs to.
func halfOf(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	if h.Sum32()%2 == 0 {
		return tuning
	}
	return heldOut
}

// inHalf reports whether the page named name is scored under -half.
func inHalf(name string) bool {
	return half == both || halfOf(name) == half
}

// column is a column of a set's table: the pages it averages over.
type column struct {
	name string
	in   func(name string) bool
}

// columns are the columns of a set's table: with both halves, all pages
// and each half; otherwise the half scored.
func columns() []column {
	if half != both {
		return []column{{half, inHalf}}
	}
	return []column{
		{"all", func(string) bool { return true }},
		{tuning, func(name string) bool { return halfOf(name) == tuning }},
		{heldOut, func(name string) bool { return halfOf(name) == heldOut }},
	}
}

// halfSizes counts the pages of each half.
func halfSizes(pages []page) (tune, held int) {
	for _, p := range pages {
		if halfOf(p.name) == tuning {
			tune++
		} else {
			held++
		}
	}
	return tune, held
}

// checkBalance warns when a set of some size is split far from even: a
// hash splits names evenly on average, but a half much smaller than the
// other would make its figures noisier than they seem.
func checkBalance(title string, tune, held int) {
	n := tune + held
	if half != both || n < 20 {
		return
	}
	if 10*min(tune, held) < 4*n {
		fmt.Fprintf(os.Stderr, "warning: %s: halves unbalanced (%d tuning, %d held-out)\n", title, tune, held)
	}
}
