package articlevote

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func parse(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestArticle: what a page says of itself makes it an article, in each of
// the ways pages say it; a manual's TechArticle, a website and a page that
// says nothing are none.
func TestArticle(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{`<meta property="og:type" content="article">`, true},
		{`<meta property="og:type" content=" Article ">`, true},
		{`<meta property="og:type" content="website">`, false},
		{`<meta property="article:published_time" content="2026-01-14T13:00:00Z">`, true},
		{`<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"x"}</script>`, true},
		{`<script type="application/ld+json">{"@graph":[{"@type":"WebSite"},{"@type":["BlogPosting"]}]}</script>`, true},
		{`<script type="application/ld+json">[{"@type":"Organization"},{"@type":"ReportageNewsArticle"}]</script>`, true},
		{`<script type="application/ld+json">{"@type":"TechArticle","headline":"Configuring the server"}</script>`, false},
		{`<script type="application/ld+json">{"@type":"WebPage","name":"Article"}</script>`, false},
		{`<script type="application/ld+json">{not json</script>`, false},
		{`<title>Plain</title>`, false},
	}
	for _, c := range cases {
		doc := parse(t, "<html><head>"+c.head+"</head><body><p>text</p></body></html>")
		if got := Article(doc); got != c.want {
			t.Errorf("Article(%s) = %v, want %v", c.head, got, c.want)
		}
	}
	micro := parse(t, `<html><body><div itemscope itemtype="https://schema.org/OpinionNewsArticle"><p>text</p></div></body></html>`)
	if !Article(micro) {
		t.Error("a microdata article is not one")
	}
}

// TestWords: words are runs of letters and digits, lower-cased; the
// scripts written without spaces give a word a character.
func TestWords(t *testing.T) {
	got := Words("The Quay's 2 budgets — 東京都の予算 and ภาษา!")
	want := []string{"the", "quay", "s", "2", "budgets", "東", "京", "都", "の", "予", "算", "and", "ภ", "า", "ษ", "า"}
	if !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

// TestAskAndKeeps: on a real-shaped article page the extractors keep the
// article's paragraphs and leave out the readers' comments (named as
// such by the page), and the document asked about is left as it was.
func TestAskAndKeeps(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>The harbour budget</title><meta property="og:type" content="article"></head><body>
<nav><a href="/">Home</a></nav><article><h1>The harbour budget passes</h1><h2>Moorings</h2>`)
	for _, topic := range []string{"dredging the channel", "the east quay's moorings", "the winter ferry", "the customs house", "the breakwater"} {
		b.WriteString("<p>Residents spoke about " + topic + " for an hour, and the council listened before it voted on " + topic + " late at night.</p>")
	}
	b.WriteString(`</article><section id="comments" class="comments"><h2>Comments</h2><ol class="comment-list">`)
	for range 5 {
		b.WriteString(`<li class="comment"><div class="comment-author">reader</div><div class="comment-content"><p>Nobody asked the fishermen what they need from the quay this year.</p></div></li>`)
	}
	b.WriteString(`</ol></section><footer>© Example</footer></body></html>`)
	doc := parse(t, b.String())
	var before strings.Builder
	html.Render(&before, doc)
	op := Ask(doc, &url.URL{Scheme: "https", Host: "news.example", Path: "/2026/harbour"})
	if op == nil {
		t.Fatal("no opinions on an article page")
	}
	if !op.Keeps("Residents spoke about the winter ferry for an hour, and the council listened") {
		t.Error("a paragraph of the article is not kept")
	}
	if op.Keeps("Nobody asked the fishermen what they need from the quay this year.") {
		t.Error("a comment is kept")
	}
	if !op.Keeps("Moorings") {
		t.Error("a heading of one word is not kept")
	}
	if !op.Keeps("— ·") {
		t.Error("a text of no words is not kept")
	}
	var after strings.Builder
	html.Render(&after, doc)
	if before.String() != after.String() {
		t.Error("asking changed the document")
	}
}

// TestAskTooLarge: a page of more elements than MaxElements is not asked
// about.
func TestAskTooLarge(t *testing.T) {
	page := "<html><body><article>" + strings.Repeat("<p>a line of the article</p>", MaxElements) + "</article></body></html>"
	if Ask(parse(t, page), nil) != nil {
		t.Error("a page beyond MaxElements was asked about")
	}
}

// TestAskConcurrently: pages are converted on many goroutines at once;
// asking is safe there (run with -race).
func TestAskConcurrently(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><article><h1>T</h1>` +
		strings.Repeat("<p>Residents spoke about the ferry for an hour, and the council listened before it voted.</p>", 6) +
		`</article></body></html>`
	done := make(chan bool)
	for range 8 {
		doc := parse(t, page)
		go func() {
			op := Ask(doc, nil)
			done <- op != nil && op.Keeps("Residents spoke about the ferry for an hour")
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("a concurrent ask did not keep the article")
		}
	}
}
