package testsite

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

var hrefs = regexp.MustCompile(`href="(/[^"]*)"`)

// TestShape checks that every page is reachable, sizes are as documented,
// every link resolves, and pages share their navigation.
func TestShape(t *testing.T) {
	s := New(Options{Pages: 2000})
	srv := httptest.NewServer(s)
	defer srv.Close()
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	links, minSize, maxSize := 0, 1<<30, 0
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", p, resp.StatusCode)
		}
		minSize, maxSize = min(minSize, len(body)), max(maxSize, len(body))
		for _, m := range hrefs.FindAllSubmatch(body, -1) {
			link := string(m[1])
			if link == "/site.css" {
				continue
			}
			links++
			if s.page(link) < 0 {
				t.Fatalf("%s links to %s, which is no page", p, link)
			}
			if !seen[link] {
				seen[link] = true
				queue = append(queue, link)
			}
		}
	}
	if len(seen) != 2000 {
		t.Fatalf("reached %d pages, want 2000", len(seen))
	}
	if minSize < 8<<10 || maxSize > 20<<10 {
		t.Errorf("page sizes %d..%d bytes, want 8..20 KB", minSize, maxSize)
	}
	if per := float64(links) / 2000; per < 10 || per > 25 {
		t.Errorf("%.1f links a page", per)
	}
	st := s.Stats()
	if st.Requests != 2000 || st.Repeats != 0 || st.Distinct != 2000 {
		t.Errorf("stats %+v", st)
	}
}

// TestFlaky checks that a flaky site fails about as often as asked and
// that retrying a page gets it.
func TestFlaky(t *testing.T) {
	s := New(Options{Pages: 1000, FailOneIn: 10, ResetOneIn: 20})
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for n := 0; n < 1000; n++ {
		for attempt := 0; ; attempt++ {
			if attempt == 6 {
				t.Fatalf("page %d still fails after 6 attempts", n)
			}
			resp, err := client.Get(srv.URL + s.Path(n))
			if err != nil {
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
			if resp.StatusCode != 429 && resp.StatusCode != 503 {
				t.Fatalf("status %d", resp.StatusCode)
			}
		}
	}
	st := s.Stats()
	if st.Distinct != 1000 || st.Repeats != 0 {
		t.Errorf("stats %+v", st)
	}
	if st.Failures < 60 || st.Failures > 160 || st.Resets < 25 || st.Resets > 90 {
		t.Errorf("%d failures and %d resets for about 1,150 requests", st.Failures, st.Resets)
	}
}

// TestScripted checks that a Scripted site's addresses answer the shell,
// with neither text nor links, and that its content comes from /content/.
func TestScripted(t *testing.T) {
	s := New(Options{Pages: 50, Scripted: true})
	srv := httptest.NewServer(s)
	defer srv.Close()
	get := func(p string) (int, string) {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, p := range []string{"/", s.Path(7)} {
		code, body := get(p)
		if code != 200 || body != shell {
			t.Errorf("%s answered %d %q, want the shell", p, code, body)
		}
	}
	if code, _ := get("/no/such/page"); code != 404 {
		t.Errorf("no page answered %d, want 404", code)
	}
	if code, body := get("/app.js"); code != 200 || !regexp.MustCompile(`fetch\('/content'`).MatchString(body) {
		t.Errorf("/app.js answered %d %q", code, body)
	}
	code, body := get("/content" + s.Path(7))
	if code != 200 || len(hrefs.FindAllString(body, -1)) < 5 || regexp.MustCompile(`<html|<body`).MatchString(body) {
		t.Errorf("the content of page 7 answered %d %q, want its body's links and no document", code, body)
	}
	if code, _ := get("/content/s1/p999"); code != 404 {
		t.Errorf("the content of no page answered %d, want 404", code)
	}
	if st := s.Stats(); st.Requests != 1 || st.Distinct != 1 {
		t.Errorf("stats %+v, want one page served (its content)", st)
	}
}
