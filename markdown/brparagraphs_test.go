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
