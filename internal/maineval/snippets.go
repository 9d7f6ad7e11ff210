package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// readSnippetSet reads trafilatura's comparison set from dir (the
// go-trafilatura module): the pages under test-files/comparison and, from
// the Go source of scripts/comparison/data.go, the snippets each page's
// main content must and must not hold.
func readSnippetSet(dir string) ([]page, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "scripts", "comparison", "data.go"), nil, 0)
	if err != nil {
		return nil, err
	}
	var pages []page
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		lit, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			return true
		}
		var file string
		var with, without []string
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
				file = unquote(field.Value)
			case "With":
				with = strs(field.Value)
			case "Without":
				without = strs(field.Value)
			}
		}
		if file == "" {
			return true
		}
		html, err := os.ReadFile(filepath.Join(dir, "test-files", "comparison", file))
		if err == nil {
			pages = append(pages, snippetPage(file, html, with, without))
		}
		return false
	})
	return pages, nil
}

// snippetPage scores a text by the snippets it holds: one it must hold is
// a true positive when there and a false negative when not; one it must
// not hold is a false positive when there.
func snippetPage(name string, html []byte, with, without []string) page {
	return page{
		name: name,
		html: html,
		score: func(text string) score {
			var s score
			for _, w := range with {
				if strings.Contains(text, w) {
					s.tp++
				} else {
					s.fn++
				}
			}
			for _, w := range without {
				if strings.Contains(text, w) {
					s.fp++
				}
			}
			return s
		},
		diff: func(text string) {
			for _, w := range with {
				if !strings.Contains(text, w) {
					fmt.Printf("MISS  %s: %q\n", name, w)
				}
			}
			for _, w := range without {
				if strings.Contains(text, w) {
					fmt.Printf("EXTRA %s: %q\n", name, w)
				}
			}
		},
	}
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
