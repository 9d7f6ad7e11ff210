package modernweb_test

import (
	"reflect"
	"testing"

	"github.com/durablecrawl/crawler/internal/modernweb"
)

// TestCheck: a With line is held when its words stand in the text in
// order, whatever the case, the punctuation or the markdown around them;
// a Without line the text holds is kept; a line whose words are there
// but apart is not held.
func TestCheck(t *testing.T) {
	p := modernweb.Page{
		With:    []string{"The harbour freezes in January.", "Ships wait at the quay", "Nobody sails"},
		Without: []string{"Subscribe to our newsletter", "Terms of Use"},
	}
	text := modernweb.Text("# Winter\n\nThe **harbour** [freezes](https://example.com/ice) in january: ships wait, at the quay.\n\nNobody else sails.\n\nTerms of use")
	got := modernweb.Check(p, text)
	want := modernweb.Checked{Missed: []string{"Nobody sails"}, Kept: []string{"Terms of Use"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Check = %+v, want %+v", got, want)
	}
	var sum modernweb.Checks
	sum.Add(p, got)
	if sum != (modernweb.Checks{With: 3, Missed: 1, Without: 2, Kept: 1}) {
		t.Errorf("Checks = %+v", sum)
	}
}
