package crawlplan

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRead takes a model's options, in a code fence or not, and refuses
// what is not options of the schema.
func TestRead(t *testing.T) {
	got, err := Read("Here you are:\n```json\n{\"includePaths\": [\"^/blog/2024/\"], \"limit\": 20}\n```")
	if err != nil || string(got["includePaths"]) != `["^/blog/2024/"]` || string(got["limit"]) != "20" {
		t.Errorf("Read: %v %v", got, err)
	}
	for _, bad := range []string{"I cannot.", `{"limit": 0}`, `{"webhook": "https://x.example/"}`, `{"sitemap": "sometimes"}`, `["^/blog/"]`} {
		if _, err := Read(bad); err == nil {
			t.Errorf("Read(%q) took it", bad)
		}
	}
}

// TestMerge: the typed options win over the planned ones.
func TestMerge(t *testing.T) {
	body := map[string]json.RawMessage{"url": json.RawMessage(`"https://x.example/"`), "limit": json.RawMessage("5"), "excludePaths": json.RawMessage("null")}
	planned := map[string]json.RawMessage{"limit": json.RawMessage("50"), "excludePaths": json.RawMessage(`["/tag/"]`), "sitemap": json.RawMessage(`"skip"`)}
	m := Merge(body, planned)
	if string(m["limit"]) != "5" || string(m["excludePaths"]) != `["/tag/"]` || string(m["sitemap"]) != `"skip"` || string(m["url"]) != `"https://x.example/"` {
		t.Errorf("Merge: %s", m)
	}
}

func TestQuestion(t *testing.T) {
	q := Question("https://x.example/blog/", "  only the 2024 posts ")
	for _, want := range []string{"Start URL: https://x.example/blog/", "What to crawl: only the 2024 posts\n", "- includePaths:", "- sitemap:"} {
		if !strings.Contains(q, want) {
			t.Errorf("the question lacks %q:\n%s", want, q)
		}
	}
}
