package markdown

import (
	"strings"
	"testing"
)

// TestBreakParagraphs: a post written as text parted by double line
// breaks (Blogger's way, no <p>) keeps its paragraphs, headings and
// single line breaks in main-content mode; a server script's warnings
// printed into the page go.
func TestBreakParagraphs(t *testing.T) {
	var body strings.Builder
	body.WriteString(`<nav><a href="/">Home</a> <a href="/about">About</a></nav><h1>Silicon notes</h1><div class="post-body">`)
	for i := 1; i <= 6; i++ {
		body.WriteString(`Paragraph ` + string(rune('0'+i)) + ` of the post, which tells of the programmable parts and how their bitstream was read back.<br />` +
			`A second line of it.<br /><br />`)
		if i == 3 {
			body.WriteString(`<h2>So what is a GreenPak?</h2><br />`)
		}
	}
	body.WriteString(`</div><div class="widget"><b>Warning</b>: Use of undefined constant comments - assumed 'comments' in <b>/srv/www/widget.php</b> on line <b>12</b><br /><br />` +
		`<b>Warning</b>: Use of undefined constant trackbacks in <b>/srv/www/widget.php</b> on line <b>13</b><br /></div>`)
	d := convert(t, articlePage("Silicon notes", body.String()), Options{MainContentOnly: true, IncludeLinks: true})
	holds(t, d.Markdown, "Paragraph 1 of the post", "Paragraph 6 of the post", "## So what is a GreenPak?",
		"read back.  \nA second line of it.\n\nParagraph 2")
	if strings.Contains(d.Markdown, "Warning") || strings.Contains(d.Markdown, "About") {
		t.Errorf("the server's warnings or the menu stayed:\n%s", d.Markdown)
	}
}

// TestLooseFirstParagraph: a section page of a manual converted from
// LaTeX (LaTeX2HTML) writes its first paragraph as text loose in <body>
// after the heading, and the next with <P>; both are the page's text,
// with its heading, as a browser shows them: blocks one after the other.
func TestLooseFirstParagraph(t *testing.T) {
	page := `<!DOCTYPE HTML>
<HTML lang="en"><HEAD><TITLE>Tilt</TITLE>
<META NAME="Generator" CONTENT="LaTeX2HTML v2022.2">
<LINK REL="previous" HREF="node10.html"><LINK REL="next" HREF="node12.html"></HEAD>
<BODY >
<DIV CLASS="navigation"><!--Navigation Panel-->
<A HREF="node12.html"><IMG WIDTH="37" HEIGHT="24" ALT="next" SRC="next.png"></A>
<A HREF="node9.html"><IMG WIDTH="26" HEIGHT="24" ALT="up" SRC="up.png"></A>
<A HREF="node10.html"><IMG WIDTH="63" HEIGHT="24" ALT="previous" SRC="prev.png"></A>
<A ID="tex2html31" HREF="node64.html"><IMG WIDTH="43" HEIGHT="24" ALT="index" SRC="index.png"></A>
<BR>
<B> Next:</B> <A HREF="node12.html">Data</A>
<B> Up:</B> <A HREF="node9.html">Keywords</A>
<B> Previous:</B> <A HREF="node10.html">Turn</A>
 &nbsp; <B>  <A ID="tex2html32" HREF="node64.html">Index</A></B>
<BR>
<BR></DIV>
<!--End of Navigation Panel-->

<H4><A ID="SECTION030182880000000000000">
Tilt</A>
</H4>

<A ID="binary_keywords_tilt"></A><A ID="tilt"></A><A ID="4582"></A>
For <B>draw</B>, the concept of a tilted frame is implemented by a pair
representing the vector to be oriented normal to the flat sheet.
Naturally, the default is (0,0).  Thus specifying both turn and
tilt together can set the frame many ways on the sheet.

<P>
The lean is applied first, followed by the turn. That is, if T' is the lean
described by an angle, and Q is the matrix moving (0,0,1) to (xq,yq,zq), let T be
built from T' at the upper left corner, 1 at element 3,3 and zeros
elsewhere. Then the rule for moving the drawing is w' = Q T w, where w
is the 3 x 1 vector of points read from the drawing file. In cases where the
points of the file are not laid out in three parts, plain rules are used to
place the points on the sheet. (E.g., usually setting the third value to
zero and placing flat points on the x-y sheet.)
<BR><HR>
</BODY></HTML>`
	d, err := Convert([]byte(page), Options{MainContentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#### Tilt", "For **draw**, the concept of a tilted frame", "The lean is applied first, followed by the turn."} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("lost %q:\n%s", want, d.Markdown)
		}
	}
	if strings.Contains(d.Markdown, "Previous:") {
		t.Errorf("the navigation bar is kept:\n%s", d.Markdown)
	}
}
