package markdown

import (
	"net/url"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/pagestyle"
)

// styledPage is a page of a manual with css in its head and body in its
// main content.
func styledPage(css, body string) string {
	return `<html><head><title>Guide</title><style>` + css + `</style></head><body><nav><a href="/">Home</a> <a href="/api">API</a></nav>
<main><h1>Guide</h1><p>This guide shows how a program reads its configuration file and what each of its keys means.</p>` + body +
		`<p>The next chapter explains how the program writes its log, and how to read it.</p></main></body></html>`
}

const doxygenCSS = `div.fragment { padding: 0 0 1px 0; border: 1px solid #C4CFE5 }
div.line { font-family: monospace, fixed; white-space: -moz-pre-wrap; white-space: pre-wrap; text-indent: -53px; padding-left: 53px }
span.lineno { padding-right: 4px; white-space: pre }
div.ttc { display: none }`

// TestStyledCodeBlocks: blocks the page's styles show line for line are
// fenced code, line for line, whatever their tags; the rest stays text.
func TestStyledCodeBlocks(t *testing.T) {
	cases := []struct {
		name, css, body, want string
	}{
		{"Doxygen's fragment of lines, with line numbers and a tooltip", doxygenCSS,
			`<div class="fragment"><div class="line"><a id="l00001"></a><span class="lineno">    1</span><span class="preprocessor">#include &lt;stdio.h&gt;</span></div>
<div class="line"><a id="l00002"></a><span class="lineno">    2</span> </div>
<div class="line"><a id="l00003"></a><span class="lineno">    3</span><span class="keyword">int</span> main(<span class="keywordtype">void</span>) {</div>
<div class="line"><a id="l00004"></a><span class="lineno">    4</span>    <a class="code" href="x.html">puts</a>(<span class="stringliteral">&quot;# hi&quot;</span>);</div>
<div class="ttc" id="tt1"><div class="ttname">puts</div><div class="ttdef">int puts(const char *)</div></div>
<div class="line"><a id="l00005"></a><span class="lineno">    5</span>}</div>
</div>`,
			"```\n#include <stdio.h>\n\nint main(void) {\n    puts(\"# hi\");\n}\n```"},
		{"Doxygen's guide pages: lines without numbers", doxygenCSS,
			`<div class="fragment"><div class="line"># comment</div>
<div class="line">value = 1</div></div>`,
			"```\n# comment\nvalue = 1\n```"},
		{"a div the style attribute keeps as written", "",
			"<div style=\"white-space: pre\">name:  demo\n  port: 8080</div>",
			"```\nname:  demo\n  port: 8080\n```"},
		{"a monospace block of lines broken by <br>", ".listing { font-family: Consolas, 'Courier New', monospace }",
			`<div class="listing">SELECT name<br>  FROM users<br>  WHERE id = 1;</div>`,
			"```\nSELECT name\nFROM users\nWHERE id = 1;\n```"},
	}
	for _, c := range cases {
		md := mainOf(t, styledPage(c.css, c.body))
		if !strings.Contains(md, c.want) {
			t.Errorf("%s:\n%s\nwant it to hold:\n%s", c.name, md, c.want)
		}
		for _, p := range []string{"This guide shows", "The next chapter"} {
			if !strings.Contains(md, p) || strings.Contains(md, "```\n"+p) {
				t.Errorf("%s: the paragraph %q is not a paragraph:\n%s", c.name, p, md)
			}
		}
	}
}

// TestStyledTextStaysText: text set in a monospace font page-wide, a
// user's comment that keeps its line breaks (pre-line, in the page's
// font), a block only print's styles keep as written and a monospace
// line alone stay paragraphs.
func TestStyledTextStaysText(t *testing.T) {
	cases := []struct{ name, css, body, text string }{
		{"a page set in a monospace font", "body { font-family: 'Fira Mono', monospace }", "<p>Every line of this blog is set in a fixed-width font,<br>as a terminal would show it.</p>", "Every line of this blog"},
		{"a reader's note keeping its line breaks", ".reply-text { white-space: pre-line }", "<div class=\"reply-text\">Thanks for the guide.\nIt helped me set up the server.</div>", "Thanks for the guide."},
		{"print's styles", "@media print { .note { white-space: pre; font-family: monospace } }", "<div class=\"note\">Remember to\nsave the file before you quit.</div>", "Remember to save the file"},
	}
	for _, c := range cases {
		md := mainOf(t, styledPage(c.css, c.body))
		if strings.Contains(md, "```") || !strings.Contains(md, c.text) {
			t.Errorf("%s: want %q as text, no code:\n%s", c.name, c.text, md)
		}
	}
}

// TestLinkedStylesheet: a stylesheet the page links is read through
// Options.Stylesheet, at the address the page's link resolves to; a sheet
// for print only is not asked for.
func TestLinkedStylesheet(t *testing.T) {
	page := `<html><head><title>Guide</title><link rel="stylesheet" href="../css/doxygen.css"><link rel="stylesheet" media="print" href="print.css"></head><body><main><h1>Guide</h1>
<p>This guide shows how a program reads its configuration file and what each of its keys means.</p>
<div class="fragment"><div class="line">a = 1</div><div class="line">b = 2</div></div></main></body></html>`
	var asked []string
	o := Options{MainContentOnly: true, PageURL: &url.URL{Scheme: "http", Host: "docs.example", Path: "/manual/guide.html"},
		Stylesheet: func(u *url.URL) *pagestyle.Sheet {
			asked = append(asked, u.String())
			return pagestyle.Parse([]byte(doxygenCSS))
		}}
	d, err := Convert([]byte(page), o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Markdown, "```\na = 1\nb = 2\n```") {
		t.Errorf("the linked sheet's lines are not code:\n%s", d.Markdown)
	}
	if len(asked) != 1 || asked[0] != "http://docs.example/css/doxygen.css" {
		t.Errorf("asked for %v, want the screen's sheet alone", asked)
	}
	o.Stylesheet = nil
	if d, _ := Convert([]byte(page), o); strings.Contains(d.Markdown, "```") {
		t.Errorf("code without the sheet that says so:\n%s", d.Markdown)
	}
}

// TestStyledTable: divs the styles lay out as a table are a table, a
// header group its header row; a grid whose row holds more than cells
// stays as it is.
func TestStyledTable(t *testing.T) {
	css := `.t { display: table } .h { display: table-header-group } .r { display: table-row } .c { display: table-cell }`
	body := `<div class="t"><div class="h"><div class="r"><div class="c">Option</div><div class="c">Default</div></div></div>
<div class="r"><div class="c">timeout</div><div class="c">30</div></div><div class="r"><div class="c">retries</div><div class="c">3</div></div></div>`
	md := mainOf(t, styledPage(css, body))
	if !strings.Contains(md, "| Option  | Default |\n|---------|---------|\n| timeout | 30      |\n| retries | 3       |") {
		t.Errorf("the styled table is not a table:\n%s", md)
	}
	odd := `<div class="t"><div class="r"><div class="c">a</div>loose text</div></div>`
	if md := mainOf(t, styledPage(css, odd)); strings.Contains(md, "|") || !strings.Contains(md, "loose text") {
		t.Errorf("a grid with loose text in a row became a table:\n%s", md)
	}
}

// TestStyledBoxesKeepTheirWordsApart: the children of an element the
// page's styles lay out as a flex or grid container, and elements they
// lay out as boxes of their own, are read apart, as a reader sees them
// ("1989 2h 7m PG-13", not "19892h 7mPG-13"); code keeps its characters,
// and spans the styles say nothing of still run on.
func TestStyledBoxesKeepTheirWordsApart(t *testing.T) {
	css := `.meta { display: flex; gap: 8px } .tag { display: inline-block } .code-row { display: flex }`
	body := `<ul><li><a href="/t/1">Indiana Jones and the Last Crusade</a><div class="meta"><span>1989</span><span>2h 7m</span><span>PG-13</span></div></li></ul>
<p>Tags: <span class="tag">adventure</span><span class="tag">classic</span></p>
<div class="code-row"><pre><span>fmt</span><span>.Println</span>(<span>x</span>)</pre></div>
<p>A word set in two spans: <span>harb</span><span>our</span>.</p>`
	d := convert(t, styledPage(css, body), Options{MainContentOnly: true, IncludeLinks: true})
	for _, want := range []string{"1989 2h 7m PG-13", "adventure classic", "fmt.Println(x)", "harbour"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("want %q in:\n%s", want, d.Markdown)
		}
	}
}
