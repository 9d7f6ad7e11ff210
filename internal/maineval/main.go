// Command maineval scores the main-content extraction (excludeNonMainTags)
// on trafilatura's public comparison set, which ships in the
// go-trafilatura module: for each page, snippets that the main content
// must hold and snippets it must not. It prints precision, recall and F1
// of this service's markdown and of go-trafilatura itself on the same
// pages.
//
//	go run ./internal/maineval
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/markusmobius/go-trafilatura"

	"github.com/durablecrawl/crawler/fetch"
	"github.com/durablecrawl/crawler/markdown"
)

type entry struct {
	file          string
	with, without []string
}

type score struct{ tp, fp, tn, fn int }

func (s *score) add(text string, e entry) {
	for _, w := range e.with {
		if strings.Contains(text, w) {
			s.tp++
		} else {
			s.fn++
		}
	}
	for _, w := range e.without {
		if strings.Contains(text, w) {
			s.fp++
		} else {
			s.tn++
		}
	}
}

func (s score) String() string {
	p := float64(s.tp) / float64(s.tp+s.fp)
	r := float64(s.tp) / float64(s.tp+s.fn)
	acc := float64(s.tp+s.tn) / float64(s.tp+s.tn+s.fp+s.fn)
	return fmt.Sprintf("precision %.3f  recall %.3f  accuracy %.3f  F1 %.3f", p, r, acc, 2*p*r/(p+r))
}

func main() {
	limit := flag.Int("n", 0, "score only the first n pages (0: all)")
	diff := flag.Bool("diff", false, "print the snippets where this service and go-trafilatura disagree")
	flag.Parse()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/markusmobius/go-trafilatura").Output()
	if err != nil {
		log.Fatalf("locate go-trafilatura: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	entries, err := readEntries(filepath.Join(dir, "scripts", "comparison", "data.go"))
	if err != nil {
		log.Fatal(err)
	}
	var ours, oursLinks, theirs score
	var ourTime, theirTime time.Duration
	n := 0
	for _, e := range entries {
		page, err := os.ReadFile(filepath.Join(dir, "test-files", "comparison", e.file))
		if err != nil {
			continue
		}
		if *limit > 0 && n >= *limit {
			break
		}
		n++
		start := time.Now()
		// As the fetcher hands pages over: in UTF-8.
		doc, err := markdown.Convert(fetch.TextUTF8(page, "text/html"), markdown.Options{MainContentOnly: true, IncludeLinks: false})
		ourTime += time.Since(start)
		text := ""
		if err == nil {
			text = plain(doc.Markdown)
		}
		ours.add(text, e)
		ourText := text
		if doc, err := markdown.Convert(fetch.TextUTF8(page, "text/html"), markdown.Options{MainContentOnly: true, IncludeLinks: true}); err == nil {
			oursLinks.add(plain(mdLink.ReplaceAllString(doc.Markdown, "$1")), e)
		}

		start = time.Now()
		res, err := trafilatura.Extract(strings.NewReader(string(page)), trafilatura.Options{EnableFallback: true, ExcludeComments: true})
		theirTime += time.Since(start)
		text = ""
		if err == nil && res != nil {
			text = res.ContentText
		}
		theirs.add(text, e)
		if *diff {
			for _, w := range e.with {
				if strings.Contains(text, w) && !strings.Contains(ourText, w) {
					fmt.Printf("MISS %s: %q\n", e.file, w)
				}
			}
			for _, w := range e.without {
				if !strings.Contains(text, w) && strings.Contains(ourText, w) {
					fmt.Printf("EXTRA %s: %q\n", e.file, w)
				}
			}
		}
	}
	fmt.Printf("%d pages\n", n)
	fmt.Printf("this service, includeLinks false %s  %v\n", ours, ourTime.Round(time.Millisecond))
	fmt.Printf("this service, includeLinks true  %s\n", oursLinks)
	fmt.Printf("go-trafilatura + fallback        %s  %v\n", theirs, theirTime.Round(time.Millisecond))
}

// plain strips the markdown marks that snippets would not contain: block
// markers at line starts, strong emphasis, escapes and table bars.
func plain(md string) string {
	r := strings.NewReplacer("**", "", "\\", "", "`", "", " | ", " ", "| ", "", " |", "")
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		lines[i] = blockMark.ReplaceAllString(l, "")
	}
	text := emphasis.ReplaceAllString(strings.Join(lines, "\n"), "$1$2$3")
	return strings.Join(strings.Fields(r.Replace(text)), " ")
}

// mdLink matches a markdown link, keeping its text.
var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// emphasis matches *text* and _text_ between word boundaries.
var emphasis = regexp.MustCompile(`(^|[\s(])[*_]([^*_\s](?:[^*_]*[^*_\s])?)[*_]([\s.,;:!?)]|$)`)

var blockMark = regexp.MustCompile(`^\s*(#{1,6} |> |[-*+] |\d+\. )+`)

// readEntries reads the comparison set's expectations from its Go source:
// File, With and Without of each entry of the map literal.
func readEntries(path string) ([]entry, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var entries []entry
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		lit, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			return true
		}
		var e entry
		for _, el := range lit.Elts {
			field, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			name, _ := field.Key.(*ast.Ident)
			if name == nil {
				continue
			}
			switch name.Name {
			case "File":
				e.file = unquote(field.Value)
			case "With":
				e.with = strs(field.Value)
			case "Without":
				e.without = strs(field.Value)
			}
		}
		if e.file != "" {
			entries = append(entries, e)
			return false
		}
		return true
	})
	return entries, nil
}

func unquote(x ast.Expr) string {
	if b, ok := x.(*ast.BasicLit); ok {
		s, _ := strconv.Unquote(b.Value)
		return s
	}
	return ""
}

func strs(x ast.Expr) []string {
	lit, ok := x.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []string
	for _, el := range lit.Elts {
		if s := unquote(el); s != "" {
			out = append(out, s)
		}
	}
	return out
}
