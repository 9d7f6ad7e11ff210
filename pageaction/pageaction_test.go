package pageaction

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestParse reads every action type with Firecrawl's defaults filled in.
func TestParse(t *testing.T) {
	list, bad := Parse(json.RawMessage(`[
		{"type": "wait", "milliseconds": 1000},
		{"type": "wait", "selector": "#done"},
		{"type": "click", "selector": "button.more", "all": true},
		{"type": "write", "text": "hello"},
		{"type": "press", "key": "Enter"},
		{"type": "scroll"},
		{"type": "scroll", "direction": "up", "selector": "#list"},
		{"type": "screenshot", "fullPage": true, "quality": 55.4, "viewport": {"width": 800, "height": 600}},
		{"type": "scrape"},
		{"type": "executeJavascript", "script": "return 1"},
		{"type": "pdf"},
		{"type": "pdf", "format": "A4", "landscape": true, "scale": 0.5},
		{"type": "click", "selector": "a", "somethingElse": 1}
	]`), 2000)
	if len(bad) > 0 {
		t.Fatalf("problems: %+v", bad)
	}
	want := []Action{
		{Type: Wait, Milliseconds: 1000},
		{Type: Wait, Selector: "#done"},
		{Type: Click, Selector: "button.more", All: true},
		{Type: Write, Text: "hello"},
		{Type: Press, Key: "Enter"},
		{Type: Scroll, Direction: "down"},
		{Type: Scroll, Direction: "up", Selector: "#list"},
		{Type: Screenshot, FullPage: true, Quality: 55, Viewport: &Viewport{800, 600}},
		{Type: Scrape},
		{Type: ExecuteJavascript, Script: "return 1"},
		{Type: PDF, Format: "Letter", Scale: 1},
		{Type: PDF, Format: "A4", Landscape: true, Scale: 0.5},
		{Type: Click, Selector: "a"},
	}
	if got, exp := fmt.Sprintf("%+v", deref(list)), fmt.Sprintf("%+v", deref(want)); got != exp {
		t.Errorf("Parse:\n got %s\nwant %s", got, exp)
	}
	back, err := Decode(Encode(list))
	if err != nil || fmt.Sprintf("%+v", deref(back)) != fmt.Sprintf("%+v", deref(list)) {
		t.Errorf("Decode(Encode(list)) = %+v, %v", deref(back), err)
	}
	for _, none := range []string{``, `null`, `[]`} {
		if l, bad := Parse(json.RawMessage(none), 0); l != nil || bad != nil {
			t.Errorf("Parse(%q) = %v, %v; want no actions", none, l, bad)
		}
	}
}

// deref prints viewports by value.
func deref(list []Action) []string {
	out := make([]string, len(list))
	for i, a := range list {
		vp := ""
		if a.Viewport != nil {
			vp = fmt.Sprintf("%dx%d", a.Viewport.Width, a.Viewport.Height)
		}
		a.Viewport = nil
		out[i] = fmt.Sprintf("%+v %s", a, vp)
	}
	return out
}

// TestParseRefusals: each problem names the entry and field at fault, as
// Firecrawl's schema refuses it, and the limits on the number of actions
// and on waiting hold.
func TestParseRefusals(t *testing.T) {
	many := "[" + strings.Repeat(`{"type":"scrape"},`, MaxActions) + `{"type":"scrape"}]`
	for _, c := range []struct {
		raw, waitFor, field, says string
	}{
		{`{"type":"scrape"}`, "0", "", "list"},
		{`[7]`, "0", "[0]", "object"},
		{`[{"selector":"a"}]`, "0", "[0].type", "one of"},
		{`[{"type":"hover","selector":"a"}]`, "0", "[0].type", `"hover" is not an action`},
		{`[{"type":"wait"}]`, "0", "[0].milliseconds", "either"},
		{`[{"type":"wait","milliseconds":10,"selector":"a"}]`, "0", "[0].milliseconds", "not both"},
		{`[{"type":"wait","milliseconds":0}]`, "0", "[0].milliseconds", "above 0"},
		{`[{"type":"wait","milliseconds":1.5}]`, "0", "[0].milliseconds", "whole"},
		{`[{"type":"click"}]`, "0", "[0].selector", "required"},
		{`[{"type":"click","selector":"a","all":"yes"}]`, "0", "[0].all", "true or false"},
		{`[{"type":"write"}]`, "0", "[0].text", "required"},
		{`[{"type":"press","key":""}]`, "0", "[0].key", "required"},
		{`[{"type":"scroll","direction":"left"}]`, "0", "[0].direction", "up or down"},
		{`[{"type":"screenshot","quality":0}]`, "0", "[0].quality", "1 to 100"},
		{`[{"type":"screenshot","viewport":{"width":8000,"height":100}}]`, "0", "[0].viewport", "at most 7680"},
		{`[{"type":"screenshot","viewport":{"width":800}}]`, "0", "[0].viewport", "whole numbers"},
		{`[{"type":"executeJavascript","script":" "}]`, "0", "[0].script", "required"},
		{`[{"type":"pdf","format":"B5"}]`, "0", "[0].format", "one of"},
		{`[{"type":"pdf","scale":3}]`, "0", "[0].scale", "0.1 to 2"},
		{many, "0", "", "at most 50"},
		{`[{"type":"wait","milliseconds":30000},{"type":"wait","milliseconds":30001}]`, "0", "", "at most 1m0s"},
		{`[{"type":"wait","milliseconds":50000}]`, "10001", "", "at most 1m0s"},
		{"[" + strings.Repeat(`{"type":"wait","selector":"a"},`, 40) + `{"type":"wait","milliseconds":20001}]`, "0", "", "a second for each wait for a selector"},
	} {
		var waitFor int
		fmt.Sscan(c.waitFor, &waitFor)
		list, bad := Parse(json.RawMessage(c.raw), waitFor)
		found := false
		for _, p := range bad {
			found = found || p.Field == c.field && strings.Contains(p.Message, c.says)
		}
		if list != nil || !found {
			t.Errorf("Parse(%.80s, %d) = %v, %+v; want a problem at %q saying %q", c.raw, waitFor, list, bad, c.field, c.says)
		}
	}
	if _, bad := Parse(json.RawMessage(`[{"type":"wait","milliseconds":30000},{"type":"wait","milliseconds":30000}]`), 0); bad != nil {
		t.Errorf("exactly 60 s of waiting is refused: %+v", bad)
	}
}

// TestFailedNamesTheAction: a failed action's message names its place,
// its type and aim, and why.
func TestFailedNamesTheAction(t *testing.T) {
	err := &Failed{Index: 2, Action: Action{Type: Click, Selector: "#more"}, Reason: "timed out"}
	if got := err.Error(); got != `action 2 (click "#more") failed: timed out` {
		t.Errorf("Error() = %q", got)
	}
}

// TestAbsolute: paths become the API's addresses, and a document always
// holds its four lists.
func TestAbsolute(t *testing.T) {
	d := (&Document{Screenshots: []string{"/screenshots/a"}, PDFs: []string{"/screenshots/b"}}).Absolute("http://api")
	b, _ := json.Marshal(d)
	if string(b) != `{"screenshots":["http://api/screenshots/a"],"scrapes":[],"javascriptReturns":[],"pdfs":["http://api/screenshots/b"]}` {
		t.Errorf("Absolute: %s", b)
	}
}
