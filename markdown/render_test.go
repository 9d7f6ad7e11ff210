package markdown

import (
	"net/url"
	"testing"
)

// TestRender: what the renderer writes for the constructs where
// markdown could misread text, or where the tree's white space and marks
// meet (whole body, links kept).
func TestRender(t *testing.T) {
	pageURL, _ := url.Parse("https://example.com/docs/a.html")
	for _, c := range []struct{ name, html, want string }{
		{"spaces move outside emphasis", `<p>a<em> b </em>c<strong>d </strong>e</p>`, "a *b* c**d** e"},
		{"empty emphasis leaves nothing", `<p>a <em> </em> <strong></strong>b</p>`, "a b"},
		{"nested emphasis of one kind", `<p><b>x <strong>y</strong> z</b></p>`, "**x y z**"},
		{"emphasis around a link", `<p><strong><a href="/x">X</a></strong> and <a href="/y"><em>Y</em></a></p>`,
			"**[X](https://example.com/x)** and [*Y*](https://example.com/y)"},
		{"a link around blocks keeps its words on a line", `<a href="/card"><h3>Title</h3><p>Text of the card</p></a>`,
			"[Title Text of the card](https://example.com/card)"},
		{"a link inside a link keeps its text", `<p><a href="/a">one <a href="/b">two</a></a></p>`, "[one](https://example.com/a) [two](https://example.com/b)"},
		{"an address markdown would cut", `<p><a href="/wiki/Go_(lang) x[1]">Go</a></p>`, "[Go](https://example.com/wiki/Go_%28lang%29%20x%5B1%5D)"},
		{"brackets inside link text", `<p><a href="/x">see [1]</a> and arr[0] and [a](b)</p>`,
			`[see \[1\]](https://example.com/x) and arr[0] and [a\](b)`},
		{"line starts that would be markup", `<p># one</p><p>1. two</p><p>2020) three</p><p>- four</p><p>+ five</p><p>&gt; six</p><p>---</p><p>===</p><p>~~~ seven</p>`,
			"\\# one\n\n1\\. two\n\n2020\\) three\n\n\\- four\n\n\\+ five\n\n\\> six\n\n\\---\n\n\\===\n\n\\~~~ seven"},
		{"the same mid-line is text", `<p>a # b 1. c - d + e &gt; f</p>`, "a # b 1. c - d + e > f"},
		{"after a line break too", `<p>a<br># b</p>`, "a  \n\\# b"},
		{"emphasis characters", `<p>snake_case _x_ 5 * 3 a*b*c</p>`, `snake_case \_x\_ 5 * 3 a\*b\*c`},
		{"backticks, backslashes, tags and entities", "<p>`x` C:\\path a\\*b &lt;div&gt; x &lt; 3 &amp;copy; AT&amp;T</p>",
			"\\`x\\` C:\\path a\\\\\\*b \\<div> x < 3 \\&copy; AT&T"},
		{"code spans with backticks", "<p><code>a `b` c</code> <code>`x</code> <code> spaced </code>end</p>",
			"``a `b` c`` `` `x `` `spaced` end"},
		{"code spans keep their text as it is", `<p><code>a*b_c [d]</code></p>`, "`a*b_c [d]`"},
		{"code span white space collapses", "<p><code>a\n   b</code></p>", "`a b`"},
		{"a heading is one line", `<h2>Head<br>line <code>x</code> #</h2>`, "## Head line `x` \\#"},
		{"an empty heading goes", `<h2> </h2><p>x</p>`, "x"},
		{"a trailing line break goes", `<p>a<br><br></p><p><br>b</p>`, "a\n\nb"},
		{"soft hyphens and no-break spaces", "<p>ex\u00adam\u200bple&nbsp;&nbsp;word</p>", "example word"},
		{"a list between items joins the item before", `<ul><li>a</li><ul><li>b</li></ul><li>c</li></ul>`, "- a\n\n  - b\n- c"},
		{"an ordered list counts from its start", `<ol start="9"><li>nine</li><li>ten<p>more</p></li></ol>`, "9. nine\n10. ten\n\n    more"},
		{"empty items go", `<ul><li> </li><li>x</li></ul>`, "- x"},
		{"a quote of code quotes every line", "<blockquote><p>Run:</p><pre><code>a\n\nb</code></pre></blockquote>", "> Run:\n>\n> ```\n> a\n>\n> b\n> ```"},
		{"a fence longer than the code's", "<pre><code>```\nx\n```</code></pre>", "````\n```\nx\n```\n````"},
		{"a table with spans and a caption", `<table><caption>Sizes</caption><tr><th>A</th><th>B</th><th>C</th></tr><tr><td rowspan="2">1</td><td colspan="2">2</td></tr><tr><td>3</td><td>a|b</td></tr></table>`,
			"Sizes\n\n| A | B | C    |\n|---|---|------|\n| 1 | 2 |      |\n|   | 3 | a\\|b |"},
		{"inline elements around blocks give way to them", `<span>intro <div>block</div> outro</span>`, "intro\n\nblock\n\noutro"},
		{"form controls are not text", `<p>a <select><option>x</option></select> <input value="v"> b</p>`, "a b"},
		{"an image in a link", `<p><a href="/y"><img src="/i.png" alt="An [image]"></a></p>`, "[![An \\[image\\]](https://example.com/i.png)](https://example.com/y)"},
		{"a rule", `<p>a</p><hr><p>b</p>`, "a\n\n* * *\n\nb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Convert([]byte("<html><body>"+c.html+"</body></html>"), Options{PageURL: pageURL, IncludeLinks: true})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Markdown != c.want {
				t.Errorf("markdown of %s:\n%s\n--- want:\n%s", c.html, doc.Markdown, c.want)
			}
		})
	}
}
