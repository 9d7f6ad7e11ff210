package linkmemo

import (
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/durablecrawl/crawler/db"
)

func link(key string, depth int, rank string) db.NewPage {
	return db.NewPage{URL: "https:" + key, NormalizedURL: key, Depth: depth, Rank: rank}
}

func keys(links []db.NewPage) []string {
	var out []string
	for _, l := range links {
		out = append(out, l.NormalizedURL+"@"+l.Rank)
	}
	return out
}

// TestMemo: a link enqueued is not sent again at its place or further,
// but is when it comes closer to the start; crawls are apart; forgetting
// a crawl, or passing the bound, sends everything again.
func TestMemo(t *testing.T) {
	m := New(4)
	a, b := uuid.New(), uuid.New()
	m.Enqueued(a, []db.NewPage{link("//x/1", 1, "001"), link("//x/2", 1, "002")})
	got := m.Unknown(a, []db.NewPage{
		link("//x/1", 1, "001"), // where it is
		link("//x/2", 2, "000"), // deeper
		link("//x/2", 1, "001"), // closer
		link("//x/3", 2, "003"), // new
	})
	if want := []string{"//x/2@001", "//x/3@003"}; !reflect.DeepEqual(keys(got), want) {
		t.Errorf("unknown %v, want %v", keys(got), want)
	}
	if got := m.Unknown(b, []db.NewPage{link("//x/1", 1, "001")}); len(got) != 1 {
		t.Errorf("another crawl's link counted as known: %v", keys(got))
	}
	m.Enqueued(a, got)
	if got := m.Unknown(a, []db.NewPage{link("//x/2", 1, "001")}); len(got) != 0 {
		t.Errorf("a link moved closer is still sent: %v", keys(got))
	}
	m.Forget(a)
	if got := m.Unknown(a, []db.NewPage{link("//x/1", 1, "001")}); len(got) != 1 {
		t.Errorf("a forgotten crawl's link is not sent: %v", keys(got))
	}
	m.Enqueued(a, []db.NewPage{link("//x/1", 1, "001"), link("//x/2", 1, "002"), link("//x/3", 1, "003")})
	m.Enqueued(b, []db.NewPage{link("//y/1", 1, "001"), link("//y/2", 1, "002")}) // past the bound: starts afresh
	if got := m.Unknown(a, []db.NewPage{link("//x/1", 1, "001")}); len(got) != 1 || m.size != 2 {
		t.Errorf("past the bound the memo holds %d links and knows %v", m.size, keys(got))
	}
	var none *Memo
	if got := none.Unknown(a, []db.NewPage{link("//x/1", 1, "001")}); len(got) != 1 {
		t.Error("a nil memo knows a link")
	}
	none.Enqueued(a, got)
	none.Forget(a)
}
