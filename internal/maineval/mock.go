package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
)

// The realworld mock set of go-trafilatura: the pages under
// test-files/mock, the addresses they were saved from (the map
// rwMockFiles in realworld-mock_test.go) and, in realworld_test.go, a
// test that extracts each page and asserts which snippets its text holds
// and which it does not. The snippets are read from that Go source with
// go/ast rather than copied here, so that the set follows the module's
// version; a change of its layout shows as too few pages or snippets.
const (
	mockPages = "test-files/mock"
	mockFiles = "realworld-mock_test.go"
	mockTests = "realworld_test.go"
	mockTest  = "Test_Extract"
)

// minMockPages and minMockSnippets are the least the mock set must yield
// (v1.12.2 has 80-odd pages with snippets and 400-odd snippets): fewer
// means the test files changed shape and the parser missed most of them.
const (
	minMockPages    = 70
	minMockSnippets = 300
)

// mockExpect is what the test asserts of one page: the snippets its text
// must hold and must not.
type mockExpect struct {
	with, without []string
}

// readMockSet reads the mock set from dir (the go-trafilatura module).
// Pages are named by their file name, as the comparison set's are; a page
// the test asserts no text snippet of (only HTML) is left out, as it would
// score a perfect page whatever was extracted.
func readMockSet(dir string) ([]page, error) {
	files, err := mockFileMap(filepath.Join(dir, mockFiles))
	if err != nil {
		return nil, err
	}
	order, expects, err := mockSnippets(filepath.Join(dir, mockTests))
	if err != nil {
		return nil, err
	}
	var pages []page
	snippets := 0
	for _, addr := range order {
		file, ok := files[addr]
		if !ok {
			return nil, fmt.Errorf("%s: %s has no file in %s", mockTests, addr, mockFiles)
		}
		e := expects[addr]
		if len(e.with)+len(e.without) == 0 {
			continue
		}
		html, err := os.ReadFile(filepath.Join(dir, mockPages, file))
		if err != nil {
			return nil, err
		}
		pages = append(pages, snippetPage(file, html, e.with, e.without))
		snippets += len(e.with) + len(e.without)
	}
	fmt.Printf("go-trafilatura's mock set: parsed %d pages with %d snippets\n", len(pages), snippets)
	if len(pages) < minMockPages || snippets < minMockSnippets {
		return nil, fmt.Errorf("mock set: %d pages and %d snippets, expected at least %d and %d: has %s changed its layout?",
			len(pages), snippets, minMockPages, minMockSnippets, mockTests)
	}
	return pages, nil
}

// mockFileMap reads the map of page addresses to file names: every
// key-value pair of string literals in the file (it holds nothing else).
func mockFileMap(path string) (map[string]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if addr, file := unquote(kv.Key), unquote(kv.Value); addr != "" && file != "" {
				files[addr] = file
			}
			return false
		}
		return true
	})
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no page addresses", path)
	}
	return files, nil
}

// mockSnippets reads the test's assertions in source order: each call
// extractMockFile(files, ADDRESS[, links]) makes ADDRESS the page the
// assertions after it are about, and assert.True or assert.False of
// resContains(result, SNIPPET) adds SNIPPET to what the page must or
// must not hold. Whether links were kept does not change the text
// asserted on, so such a call counts the same. Assertions commented out
// are not in the syntax tree, and those on the HTML (htmlContains) are
// passed over. A snippet asserted twice of a page counts once. It
// returns the addresses in the order the test first names them.
func mockSnippets(path string) ([]string, map[string]*mockExpect, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, nil, err
	}
	body := testBody(f, mockTest)
	if body == nil {
		return nil, nil, fmt.Errorf("%s: no func %s", path, mockTest)
	}
	var order []string
	expects := map[string]*mockExpect{}
	current := ""
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if addr, ok := mockCall(call); ok {
			current = addr
			if expects[addr] == nil {
				expects[addr] = &mockExpect{}
				order = append(order, addr)
			}
			return false
		}
		must, snippet, ok := snippetAssert(call)
		if !ok {
			return true
		}
		if current == "" {
			err = fmt.Errorf("%s: snippet %q asserted before any page", path, snippet)
			return false
		}
		e := expects[current]
		if must {
			e.with = appendNew(e.with, snippet)
		} else {
			e.without = appendNew(e.without, snippet)
		}
		return false
	})
	return order, expects, err
}

// testBody is the body of the function named name, or nil.
func testBody(f *ast.File, name string) *ast.BlockStmt {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name {
			return fn.Body
		}
	}
	return nil
}

// mockCall reports whether call is extractMockFile(files, ADDRESS, ...)
// and returns ADDRESS.
func mockCall(call *ast.CallExpr) (string, bool) {
	if !isIdent(call.Fun, "extractMockFile") || len(call.Args) < 2 {
		return "", false
	}
	addr := unquote(call.Args[1])
	return addr, addr != ""
}

// snippetAssert reports whether call is assert.True(t, resContains(result,
// SNIPPET)) (must is true) or assert.False of the same, and returns
// SNIPPET.
func snippetAssert(call *ast.CallExpr) (must bool, snippet string, ok bool) {
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	if !isSel || !isIdent(sel.X, "assert") || len(call.Args) < 2 {
		return false, "", false
	}
	switch sel.Sel.Name {
	case "True":
		must = true
	case "False":
	default:
		return false, "", false
	}
	inner, isCall := call.Args[1].(*ast.CallExpr)
	if !isCall || !isIdent(inner.Fun, "resContains") || len(inner.Args) != 2 {
		return false, "", false
	}
	snippet = unquote(inner.Args[1])
	return must, snippet, snippet != ""
}

func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

// appendNew appends s unless list holds it already.
func appendNew(list []string, s string) []string {
	for _, l := range list {
		if l == s {
			return list
		}
	}
	return append(list, s)
}
