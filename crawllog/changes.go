package crawllog

import (
	"fmt"
	"strings"

	"github.com/durablecrawl/crawler/crawl"
)

// Baseline is the entry that says what a change-tracking crawl compares
// its pages with: crawl prev, or nothing (every page is new).
func Baseline(c *crawl.Crawl, prev *crawl.Crawl) crawl.CrawlLog {
	if prev == nil {
		return entry(c, "baseline", Info, "Change tracking",
			"No earlier succeeded crawl of these start URLs with this scope and these options"+scheduleNote(c)+
				" to compare with: every page of this crawl is new, and the next one will compare with it.",
			crawlData(c))
	}
	return entry(c, "baseline", Info, "Change tracking",
		fmt.Sprintf("Comparing every page with crawl %s of %s"+scheduleNote(c)+": pages it fetched are asked for with its ETag and "+
			"Last-Modified, and an unchanged page keeps its markdown and extraction.", prev.ID, prev.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")),
		crawlData(c, "previousCrawlId", prev.ID.String()))
}

func scheduleNote(c *crawl.Crawl) string {
	if c.ScheduleID == nil {
		return ""
	}
	return " (among the runs of schedule " + c.ScheduleID.String() + ")"
}

// Removed is the entry of a page of the previous crawl that this one no
// longer has.
func Removed(c *crawl.Crawl, p crawl.Page) crawl.CrawlLog {
	why := deref(p.Error)
	switch {
	case p.State == crawl.PageFailed:
		why = fmt.Sprintf("it now answers %d", derefInt(p.StatusCode))
	case why == Reason(crawl.Because(crawl.PageNoLongerLinked)):
		why = "no page of the site links to it any more"
	case why == "":
		why = "it was not kept"
	}
	return entry(c, fmt.Sprintf("removed:%d", p.ID), Info, "Page removed",
		fmt.Sprintf("%s was a result of the previous crawl and is removed: %s.", p.URL, why),
		map[string]any{"url": p.URL, "statusCode": derefInt(p.StatusCode), "changeStatus": "removed"})
}

// ChangesSettled is the entry that sums up how the crawl's pages compare
// with the previous crawl's.
func ChangesSettled(c *crawl.Crawl, n crawl.ChangeCounts) crawl.CrawlLog {
	return entry(c, "changes", Info, "Changes found",
		fmt.Sprintf("Compared with the previous crawl: %d new pages, %d changed, %d the same, %d removed.",
			n.New, n.Changed, n.Same, n.Removed),
		crawlData(c, "new", n.New, "changed", n.Changed, "same", n.Same, "removed", n.Removed))
}

// Changed is the entry of a change to a running crawl: what changed, who
// asked, and how many queued pages it dropped.
func Changed(c *crawl.Crawl, ch crawl.Change, dropped int, id string) crawl.CrawlLog {
	desc := fmt.Sprintf("Crawl changed by %s: %s.", orSomeone(ch.By), describeChange(ch))
	if dropped > 0 {
		desc += fmt.Sprintf(" %d queued pages now excluded were dropped.", dropped)
	}
	data := crawlData(c, "by", orSomeone(ch.By), "dropped", dropped)
	if ch.MaxResults != nil {
		data["maxResults"] = *ch.MaxResults
	}
	if len(ch.ExcludePaths) > 0 {
		data["excludePaths"] = ch.ExcludePaths
	}
	if ch.MaxConcurrentPages != nil {
		data["maxConcurrentPages"] = *ch.MaxConcurrentPages
	}
	if ch.Paused != nil {
		data["paused"] = *ch.Paused
	}
	return entry(c, "change:"+id, Info, "Crawl changed: "+describeChange(ch), desc, data)
}

func orSomeone(by string) string {
	if by == "" {
		return "an operator"
	}
	return by
}

// describeChange says what c changes.
func describeChange(c crawl.Change) string {
	var parts []string
	if c.MaxResults != nil {
		parts = append(parts, fmt.Sprintf("maxResults %d", *c.MaxResults))
	}
	if len(c.ExcludePaths) > 0 {
		parts = append(parts, "excludePaths + "+strings.Join(c.ExcludePaths, ", "))
	}
	if c.MaxConcurrentPages != nil {
		parts = append(parts, fmt.Sprintf("maxConcurrentPages %d", *c.MaxConcurrentPages))
	}
	if c.Paused != nil && *c.Paused {
		parts = append(parts, "paused")
	} else if c.Paused != nil {
		parts = append(parts, "resumed")
	}
	return strings.Join(parts, "; ")
}
