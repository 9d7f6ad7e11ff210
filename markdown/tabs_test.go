package markdown

import (
	"os"
	"strings"
	"testing"
)

// TestTabsAndLineNumbers: code in tabs comes out panel after panel, each
// headed by its tab's label, hidden panels included; the line numbers a
// highlighter sets beside code do not.
func TestTabsAndLineNumbers(t *testing.T) {
	mkdocs, err := os.ReadFile("testdata/mkdocs-page.html")
	if err != nil {
		t.Fatal(err)
	}
	docusaurus := docPage(`<h1>Installation</h1>
<p>Install the client library with the package manager your project already uses, then import it.</p>
<div class="tabs-container"><ul role="tablist" aria-orientation="horizontal" class="tabs"><li role="tab" tabindex="0" aria-selected="true" class="tabs__item">npm</li><li role="tab" tabindex="-1" aria-selected="false" class="tabs__item">Yarn</li></ul>
<div class="margin-top--md"><div role="tabpanel" class="tabItem"><div class="codeBlockContainer"><pre class="prism-code language-bash"><code><span class="token-line">npm install client</span></code></pre></div></div>
<div role="tabpanel" class="tabItem" hidden><div class="codeBlockContainer"><pre class="prism-code language-bash"><code><span class="token-line">yarn add client</span></code></pre></div></div></div></div>
<figure class="highlight js"><table><tr><td class="gutter"><pre><span class="line">1</span><br><span class="line">2</span></pre></td><td class="code"><pre><span class="line">const c = require('client');</span><br><span class="line">c.start();</span></pre></td></tr></table></figure>
<p>The client reads its settings from the environment when it starts, so nothing else needs to be configured.</p>`)
	for _, c := range []struct {
		name, page string
		wants      []string
	}{
		{"MkDocs", string(mkdocs), []string{
			"```\n$ pip install myproj\n$ myproj --version\n```",
			"Linux\n\n```bash\napt install myproj\n```\n\nmacOS\n\n```bash\nbrew install myproj\n```",
		}},
		{"Docusaurus", docusaurus, []string{
			"npm\n\n```bash\nnpm install client\n```\n\nYarn\n\n```bash\nyarn add client\n```",
			"```js\nconst c = require('client');\nc.start();\n```",
		}},
	} {
		for _, o := range []Options{{MainContentOnly: true, IncludeLinks: true}, {IncludeLinks: true}} {
			d := convert(t, c.page, o)
			holds(t, d.Markdown, c.wants...)
			if strings.Contains(d.Markdown, "1\n2") || strings.Contains(d.Markdown, "LinuxmacOS") || strings.Contains(d.Markdown, "npmYarn") {
				t.Errorf("%s: line numbers or a bar of tab labels left:\n%s", c.name, d.Markdown)
			}
		}
	}
}
