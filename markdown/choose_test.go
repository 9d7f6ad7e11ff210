package markdown

import (
	"strings"
	"testing"
)

// docPage is a documentation page as generators make them: a sidebar
// listing every chapter (this one's title among them), a menu bar with
// the book's name as <h1>, and the chapter in <main>.
func docPage(chapter string) string {
	return `<!doctype html><html><head><title>Smart Pointers and the Deref Trait - The Book</title></head><body>
<nav class="sidebar"><ol class="chapter">
<li><a href="intro.html">Introduction</a></li>
<li><a href="ch15-01.html">Using Box to Point to Data on the Heap</a></li>
<li><a href="ch15-02.html" class="active">Smart Pointers and the Deref Trait</a></li>
<li><a href="ch15-03.html">Running Code on Cleanup with the Drop Trait</a></li>
</ol></nav>
<div id="menu-bar"><h1 class="menu-title">The Book</h1></div>
<main>` + chapter + `</main>
<nav class="nav-wrapper"><a href="ch15-01.html">Previous</a> <a href="ch15-03.html">Next</a></nav>
</body></html>`
}

// holds fails the test for each of wants that md lacks.
func holds(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestMainContentIsThePagesOwnTree: the main content comes out of the
// page's own elements, so what an article extractor rebuilds badly
// comes out as the page has it.
func TestMainContentIsThePagesOwnTree(t *testing.T) {
	chapter := `<h2 id="deref"><a class="header" href="#deref">Smart Pointers and the <code>Deref</code> Trait</a></h2>
<p>Implementing the <code>Deref</code> trait allows you to customize the behavior of the <em>dereference operator</em> <code>*</code>, so that a smart pointer can be treated like a regular reference in code that reads it.</p>
<p>Dict keys that are not of a basic type (<code>str</code>, <code>int</code>, <code>float</code>, <code>bool</code>, <code>None</code>) will be skipped instead of raising a <code>TypeError</code>. When done, the <code>PyConfig_Clear()</code> function must be used to release the configuration memory.</p>
<p class="filename">Filename: src/main.rs</p>
<pre><pre class="playground"><code class="language-rust">fn main() {
    let x = 5;
    let y = &amp;x;
}
</code></pre></pre>
<p><span class="caption">Listing 15-6: Using the dereference operator to follow a reference to an <code>i32</code> value</span></p>
<p>The variable <code>x</code> holds an <code>i32</code> value <code>5</code>. We set <code>y</code> equal to a reference to <code>x</code> and can assert that <code>x</code> is equal to <code>5</code>.</p>
<figure class="listing"><pre><code class="language-console">$ cargo run
   Compiling deref-example v0.1.0</code></pre><figcaption>Listing 15-7: The compiler's answer</figcaption></figure>
<pre class="synopsis">CREATE [ UNIQUE ] INDEX [ [ IF NOT EXISTS ] <em class="replaceable"><code>name</code></em> ] ON [ ONLY ] <em class="replaceable"><code>table_name</code></em> [ USING <em class="replaceable"><code>method</code></em> ]</pre>
<p>The rest of the chapter explains how the compiler inserts calls to <code>deref</code> where a reference of another type is expected, and why that costs nothing at run time.</p>`
	d := convert(t, docPage(chapter), Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown,
		"## Smart Pointers and the `Deref` Trait\n",
		"Implementing the `Deref` trait allows you to customize the behavior of the *dereference operator* `*`, so that",
		"Dict keys that are not of a basic type (`str`, `int`, `float`, `bool`, `None`) will be skipped instead of raising a `TypeError`. When done, the `PyConfig_Clear()` function must be used",
		"Filename: src/main.rs\n\n```rust\nfn main() {\n    let x = 5;\n    let y = &x;\n}\n```",
		"Listing 15-6: Using the dereference operator to follow a reference to an `i32` value",
		"```console\n$ cargo run\n   Compiling deref-example v0.1.0\n```",
		"Listing 15-7: The compiler's answer",
		"CREATE [ UNIQUE ] INDEX [ [ IF NOT EXISTS ] name ] ON [ ONLY ] table_name [ USING method ]",
	)
	// The sidebar entry with the chapter's title is not taken for the
	// heading, and the book's name in the menu bar is not the headline.
	for _, unwanted := range []string{"Introduction", "Running Code on Cleanup", "The Book", "Previous"} {
		if strings.Contains(d.Markdown, unwanted) {
			t.Errorf("markdown holds %q:\n%s", unwanted, d.Markdown)
		}
	}
	if n := strings.Count(d.Markdown, "Smart Pointers and the"); n != 1 {
		t.Errorf("the title is there %d times:\n%s", n, d.Markdown)
	}
}

// TestTableOfContentsDoesNotTakeTheHeadings: a table of contents before
// the article repeats its headings; the headings are matched where they
// head the article's paragraphs, and every paragraph stays.
func TestTableOfContentsDoesNotTakeTheHeadings(t *testing.T) {
	var body strings.Builder
	body.WriteString(`<article><h1>Designing a task queue</h1><ul class="toc"><li><a href="#guarantees">System guarantees</a></li><li><a href="#lifecycle">Lifecycle of a task</a></li><li><a href="#ownership">Ownership model</a></li></ul>`)
	body.WriteString(paragraphs("queues", 3))
	for _, h := range []string{"System guarantees", "Lifecycle of a task", "Ownership model"} {
		body.WriteString(`<h2>` + h + `</h2>` + paragraphs(strings.ToLower(h), 2))
	}
	body.WriteString(`</article>`)
	d := convert(t, articlePage("Designing a task queue", body.String()), Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "Paragraph 1 on queues", "Paragraph 3 on queues", "## System guarantees\n\nParagraph 1 on system guarantees",
		"## Ownership model\n\nParagraph 1 on ownership model", "Paragraph 2 on ownership model")
}

// TestCodeKeepsItsLines: a code block keeps its blank lines, however
// many, and loses only the newline a generator puts after <code>.
func TestCodeKeepsItsLines(t *testing.T) {
	page := `<html><body><pre><code class="language-console">
test tests::it_adds_two ... FAILED


failures:
</code></pre></body></html>`
	d := convert(t, page, Options{IncludeLinks: true})
	if want := "```console\ntest tests::it_adds_two ... FAILED\n\n\nfailures:\n```"; d.Markdown != want {
		t.Errorf("markdown %q, want %q", d.Markdown, want)
	}
}

// TestDocumentationDetails: what API references and manuals are made of
// comes out as the page shows it: angle brackets outside code as
// characters, no empty links, a figure's caption beside its picture, and
// a data table whose cells hold several paragraphs as a table.
func TestDocumentationDetails(t *testing.T) {
	chapter := `<h2>Using Box&lt;T&gt;</h2>
<p>A function returns <code>Option&lt;T&gt;</code> when it may have no value, so that a caller writes a -&gt; b and x &lt; y in prose.<a class="anchor" href="#box"></a></p>
<p><img src="img/trpl15-04.svg" alt="Reference cycle of lists"></p>
<p><span class="caption">Figure 15-4: A reference cycle of lists a and b pointing to each other</span></p>
<p>The rest of this chapter explains the figure above in detail, in a paragraph long enough to count as prose.</p>
<table><thead><tr><th><p>Function</p></th><th><p>Description</p></th></tr></thead>
<tbody><tr><td><p><code>abs(x)</code></p></td><td><p>Absolute value.</p><p>abs(-17.4) gives 17.4</p></td></tr>
<tr><td><p><code>ceil(x)</code></p></td><td><p>Nearest integer greater than or equal to the argument.</p><p>ceil(42.2) gives 43</p></td></tr></tbody></table>
<p>More prose follows the table here so that the table stands inside the article, between two paragraphs of prose.</p>`
	d := convert(t, docPage(chapter), Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown,
		"## Using Box\\<T>",
		"returns `Option<T>` when it may have no value, so that a caller writes a -> b and x < y in prose.",
		"![Reference cycle of lists](https://example.com/blog/img/trpl15-04.svg)",
		"Figure 15-4: A reference cycle of lists a and b pointing to each other",
		"| `abs(x)`  | Absolute value.<br />abs(-17.4) gives 17.4",
	)
	if strings.Contains(d.Markdown, "[](") || strings.Contains(d.Markdown, "&lt;") {
		t.Errorf("markdown holds an empty link or an escaped bracket:\n%s", d.Markdown)
	}
}

// TestSectionNamedAfterItsHeading: a manual's section whose id is made
// of its heading's words stays, even when a word of it names comments;
// a comment thread named so goes.
func TestSectionNamedAfterItsHeading(t *testing.T) {
	body := `<article><h1>Web support</h1>` + paragraphs("support", 3) +
		`<section id="comments-proposals"><h2>Comments &amp; Proposals</h2><p>Now that the search is done, the web support package can also handle comments and proposals, which the next paragraphs describe.</p></section>` +
		paragraphs("moderation", 2) + `</article><section id="comments"><h3>Reader comments</h3><p>Great post, thanks a lot for writing it up for all of us here!</p></section>`
	d := convert(t, articlePage("Web support", body), Options{MainContentOnly: true, IncludeLinks: true})
	if !strings.Contains(d.Markdown, "## Comments & Proposals\n\nNow that the search is done") {
		t.Errorf("the section named after its heading went:\n%s", d.Markdown)
	}
	if strings.Contains(d.Markdown, "Great post") {
		t.Errorf("the comment thread stayed:\n%s", d.Markdown)
	}
}

// TestCodeInAQuote: every line of a code block inside a quote carries
// the quote's mark, so that the quote and the fence both hold.
func TestCodeInAQuote(t *testing.T) {
	page := `<html><body><blockquote><p>The compiler complains:</p><pre><code class="language-console">$ cargo run
   Compiling structs v0.1.0

error[E0106]: missing lifetime specifier
</code></pre></blockquote></body></html>`
	d := convert(t, page, Options{IncludeLinks: true})
	want := "> The compiler complains:\n>\n> ```console\n> $ cargo run\n>    Compiling structs v0.1.0\n>\n> error[E0106]: missing lifetime specifier\n> ```"
	if d.Markdown != want {
		t.Errorf("markdown %q, want %q", d.Markdown, want)
	}
}

// TestLargePage: a page of 150,000 elements (an API reference of a few
// megabytes) gets its main content, without its navigation and footer.
func TestLargePage(t *testing.T) {
	page := `<html><head><title>Big</title></head><body><nav><a href="/">Home</a></nav><main><h1>Big</h1>` +
		strings.Repeat("<p>A line of a very long page, long enough to be a sentence of prose.</p>", 150000) + `</main><footer>Footer text</footer></body></html>`
	d := convert(t, page, Options{MainContentOnly: true, IncludeLinks: true})
	if !strings.HasPrefix(d.Markdown, "# Big\n\nA line of a very long page") || strings.Contains(d.Markdown, "Footer text") || strings.Contains(d.Markdown, "Home") {
		t.Errorf("markdown starts %q", d.Markdown[:min(200, len(d.Markdown))])
	}
	if n := strings.Count(d.Markdown, "A line of a very long page"); n != 150000 {
		t.Errorf("%d lines of 150000 kept", n)
	}
}
