// Package officedoc reads office documents — Word's .docx, OpenDocument
// text (.odt) and Excel's .xlsx — into HTML that says what the document
// shows (headings, paragraphs, lists, tables, links, bold and italic), for
// the converter to make markdown of. It reads their XML with the standard
// library alone, within bounds on the archive's size; what it cannot read
// is an error, never a guess.
package officedoc

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Kinds of document.
const (
	DOCX = "docx"
	ODT  = "odt"
	XLSX = "xlsx"
)

// MaxPartBytes bounds one part of an archive, inflated; a document whose
// part is larger is refused (a zip bomb is not read).
const MaxPartBytes = 64 << 20

// ErrNotDocument is a file that is not a document of its kind.
var ErrNotDocument = errors.New("not a readable office document")

// Kind tells an office document's kind from its archive: the parts it
// holds (a .docx's word/document.xml, an .odt's mimetype, an .xlsx's
// xl/workbook.xml); "" when data is none of them.
func Kind(data []byte) string {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return ""
	}
	for _, f := range z.File {
		switch f.Name {
		case "word/document.xml":
			return DOCX
		case "xl/workbook.xml":
			return XLSX
		case "mimetype":
			if b, err := read(f); err == nil && strings.TrimSpace(string(b)) == "application/vnd.oasis.opendocument.text" {
				return ODT
			}
		}
	}
	return ""
}

// HTML reads data, a document of kind, into an HTML page with its title.
func HTML(data []byte, kind string) (string, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotDocument, err)
	}
	parts := map[string]*zip.File{}
	for _, f := range z.File {
		parts[f.Name] = f
	}
	part := func(name string) ([]byte, error) {
		f, ok := parts[name]
		if !ok {
			return nil, fmt.Errorf("%w: it has no %s", ErrNotDocument, name)
		}
		return read(f)
	}
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"></head><body><main>")
	switch kind {
	case DOCX:
		err = docx(&b, part)
	case ODT:
		err = odt(&b, part)
	case XLSX:
		err = xlsx(&b, part)
	default:
		err = fmt.Errorf("%w: %q is not a kind this reads", ErrNotDocument, kind)
	}
	if err != nil {
		return "", err
	}
	b.WriteString("</main></body></html>")
	return b.String(), nil
}

// read inflates one part of an archive, within MaxPartBytes.
func read(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > MaxPartBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d MB inflated", ErrNotDocument, f.Name, MaxPartBytes>>20)
	}
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotDocument, f.Name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, MaxPartBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotDocument, f.Name, err)
	}
	if len(b) > MaxPartBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d MB inflated", ErrNotDocument, f.Name, MaxPartBytes>>20)
	}
	return b, nil
}

// tree parses an XML part into a tree whose elements keep their text
// and children in order.
func tree(data []byte) (*xnode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := &xnode{}
	stack := []*xnode{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotDocument, err)
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name.Local, attrs: map[string]string{}}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.kids = append(top.kids, &xnode{text: string(t), isText: true})
		}
	}
	return root, nil
}

// xnode is an element (name, attributes, children) or a run of text.
type xnode struct {
	name   string
	attrs  map[string]string
	kids   []*xnode
	text   string
	isText bool
}

// find returns the first descendant named name (depth first), or nil.
func (n *xnode) find(name string) *xnode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
		if f := k.find(name); f != nil {
			return f
		}
	}
	return nil
}

// all returns the descendants named name, in document order.
func (n *xnode) all(name string) []*xnode {
	var out []*xnode
	for _, k := range n.kids {
		if k.name == name {
			out = append(out, k)
		}
		out = append(out, k.all(name)...)
	}
	return out
}

// child returns the first child named name, or nil.
func (n *xnode) child(name string) *xnode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// esc is HTML-escaped text.
func esc(s string) string { return html.EscapeString(s) }

// docx writes a Word document's body: paragraphs (headings by their
// style's outline level or Heading name), numbered and bulleted
// paragraphs as lists, tables, hyperlinks, bold and italic runs.
func docx(b *strings.Builder, part func(string) ([]byte, error)) error {
	doc, err := part("word/document.xml")
	if err != nil {
		return err
	}
	root, err := tree(doc)
	if err != nil {
		return err
	}
	links := map[string]string{}
	if rels, err := part("word/_rels/document.xml.rels"); err == nil {
		if r, err := tree(rels); err == nil {
			for _, rel := range r.all("Relationship") {
				if strings.HasSuffix(rel.attrs["Type"], "/hyperlink") {
					links[rel.attrs["Id"]] = rel.attrs["Target"]
				}
			}
		}
	}
	levels := map[string]int{} // style ID → heading level
	if styles, err := part("word/styles.xml"); err == nil {
		if r, err := tree(styles); err == nil {
			for _, st := range r.all("style") {
				id := st.attrs["styleId"]
				if ol := st.find("outlineLvl"); ol != nil {
					if n, err := strconv.Atoi(ol.attrs["val"]); err == nil && n < 6 {
						levels[id] = n + 1
					}
				} else if name := st.child("name"); name != nil {
					if n, ok := headingNumber(name.attrs["val"]); ok {
						levels[id] = n
					}
				} else if name == nil {
					if n, ok := headingNumber(id); ok {
						levels[id] = n
					}
				}
			}
		}
	}
	body := root.find("body")
	if body == nil {
		return fmt.Errorf("%w: word/document.xml has no body", ErrNotDocument)
	}
	w := &docxWriter{b: b, links: links, levels: levels}
	w.blocks(body)
	w.closeList()
	return nil
}

// headingNumber reads "Heading 2" (or "heading2", "Title") as a heading
// level.
func headingNumber(name string) (int, bool) {
	l := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	if l == "title" {
		return 1, true
	}
	if rest, ok := strings.CutPrefix(l, "heading"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n >= 1 && n <= 6 {
			return n, true
		}
	}
	return 0, false
}

type docxWriter struct {
	b      *strings.Builder
	links  map[string]string
	levels map[string]int
	inList bool
}

func (w *docxWriter) closeList() {
	if w.inList {
		w.b.WriteString("</ul>")
		w.inList = false
	}
}

// blocks writes the paragraphs and tables among n's children.
func (w *docxWriter) blocks(n *xnode) {
	for _, k := range n.kids {
		switch k.name {
		case "p":
			w.paragraph(k)
		case "tbl":
			w.closeList()
			w.table(k)
		case "sdt", "sdtContent", "customXml":
			w.blocks(k)
		}
	}
}

func (w *docxWriter) paragraph(p *xnode) {
	var style string
	list := false
	if pr := p.child("pPr"); pr != nil {
		if ps := pr.child("pStyle"); ps != nil {
			style = ps.attrs["val"]
		}
		list = pr.child("numPr") != nil || strings.Contains(strings.ToLower(style), "list")
	}
	var text strings.Builder
	w.runs(&text, p)
	content := strings.TrimSpace(text.String())
	if content == "" {
		return
	}
	if level, ok := w.levels[style]; ok {
		w.closeList()
		fmt.Fprintf(w.b, "<h%d>%s</h%d>", level, content, level)
		return
	}
	if level, ok := headingNumber(style); ok {
		w.closeList()
		fmt.Fprintf(w.b, "<h%d>%s</h%d>", level, content, level)
		return
	}
	if list {
		if !w.inList {
			w.b.WriteString("<ul>")
			w.inList = true
		}
		fmt.Fprintf(w.b, "<li>%s</li>", content)
		return
	}
	w.closeList()
	fmt.Fprintf(w.b, "<p>%s</p>", content)
}

// runs writes the text of p's runs as inline HTML.
func (w *docxWriter) runs(out *strings.Builder, p *xnode) {
	for _, k := range p.kids {
		switch k.name {
		case "r":
			bold, italic := false, false
			if rp := k.child("rPr"); rp != nil {
				bold = on(rp.child("b"))
				italic = on(rp.child("i"))
			}
			var t strings.Builder
			for _, c := range k.kids {
				switch c.name {
				case "t":
					t.WriteString(esc(textOf(c)))
				case "tab":
					t.WriteString(" ")
				case "br", "cr":
					t.WriteString("<br>")
				}
			}
			s := t.String()
			if s == "" {
				continue
			}
			if italic {
				s = "<em>" + s + "</em>"
			}
			if bold {
				s = "<strong>" + s + "</strong>"
			}
			out.WriteString(s)
		case "hyperlink":
			var inner strings.Builder
			w.runs(&inner, k)
			if href, ok := w.links[k.attrs["id"]]; ok && inner.Len() > 0 {
				fmt.Fprintf(out, `<a href="%s">%s</a>`, esc(href), inner.String())
			} else {
				out.WriteString(inner.String())
			}
		case "ins", "smartTag", "fldSimple":
			w.runs(out, k)
		}
	}
}

// on reads a toggle property (<w:b/>, <w:b w:val="0"/>).
func on(n *xnode) bool {
	if n == nil {
		return false
	}
	v := n.attrs["val"]
	return v == "" || v == "1" || v == "true" || v == "on"
}

// textOf is the text under n.
func textOf(n *xnode) string {
	if n.isText {
		return n.text
	}
	var b strings.Builder
	for _, k := range n.kids {
		b.WriteString(textOf(k))
	}
	return b.String()
}

func (w *docxWriter) table(t *xnode) {
	w.b.WriteString("<table>")
	for i, row := range t.kids {
		if row.name != "tr" {
			continue
		}
		w.b.WriteString("<tr>")
		for _, cell := range row.kids {
			if cell.name != "tc" {
				continue
			}
			var text strings.Builder
			for _, p := range cell.all("p") {
				if text.Len() > 0 {
					text.WriteString("<br>")
				}
				w.runs(&text, p)
			}
			tag := "td"
			if i == 0 {
				tag = "th"
			}
			fmt.Fprintf(w.b, "<%s>%s</%s>", tag, text.String(), tag)
		}
		w.b.WriteString("</tr>")
	}
	w.b.WriteString("</table>")
}

// odt writes an OpenDocument text's body: headings (by outline level),
// paragraphs, lists, tables and links.
func odt(b *strings.Builder, part func(string) ([]byte, error)) error {
	content, err := part("content.xml")
	if err != nil {
		return err
	}
	root, err := tree(content)
	if err != nil {
		return err
	}
	text := root.find("text")
	if text == nil {
		return fmt.Errorf("%w: content.xml has no text body", ErrNotDocument)
	}
	odtBlocks(b, text)
	return nil
}

func odtBlocks(b *strings.Builder, n *xnode) {
	for _, k := range n.kids {
		switch k.name {
		case "h":
			level, _ := strconv.Atoi(k.attrs["outline-level"])
			level = min(max(level, 1), 6)
			if s := strings.TrimSpace(odtInline(k)); s != "" {
				fmt.Fprintf(b, "<h%d>%s</h%d>", level, s, level)
			}
		case "p":
			if s := strings.TrimSpace(odtInline(k)); s != "" {
				fmt.Fprintf(b, "<p>%s</p>", s)
			}
		case "list":
			b.WriteString("<ul>")
			for _, item := range k.kids {
				if item.name != "list-item" {
					continue
				}
				b.WriteString("<li>")
				odtBlocks(b, item)
				b.WriteString("</li>")
			}
			b.WriteString("</ul>")
		case "table":
			b.WriteString("<table>")
			for i, row := range k.all("table-row") {
				b.WriteString("<tr>")
				for _, cell := range row.kids {
					if cell.name != "table-cell" {
						continue
					}
					tag := "td"
					if i == 0 {
						tag = "th"
					}
					var parts []string
					for _, p := range cell.all("p") {
						parts = append(parts, strings.TrimSpace(odtInline(p)))
					}
					fmt.Fprintf(b, "<%s>%s</%s>", tag, strings.Join(parts, "<br>"), tag)
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</table>")
		case "section", "sequence-decls":
			odtBlocks(b, k)
		}
	}
}

// odtInline is a paragraph's text as inline HTML, its links kept.
func odtInline(n *xnode) string {
	var b strings.Builder
	for _, k := range n.kids {
		switch {
		case k.isText:
			b.WriteString(esc(k.text))
		case k.name == "a":
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, esc(k.attrs["href"]), odtInline(k))
		case k.name == "s":
			b.WriteString(" ")
		case k.name == "tab":
			b.WriteString(" ")
		case k.name == "line-break":
			b.WriteString("<br>")
		case k.name == "span":
			b.WriteString(odtInline(k))
		}
	}
	return b.String()
}

// xlsx writes each sheet of a workbook as a heading and a table.
func xlsx(b *strings.Builder, part func(string) ([]byte, error)) error {
	wb, err := part("xl/workbook.xml")
	if err != nil {
		return err
	}
	wbTree, err := tree(wb)
	if err != nil {
		return err
	}
	targets := map[string]string{}
	if rels, err := part("xl/_rels/workbook.xml.rels"); err == nil {
		if r, err := tree(rels); err == nil {
			for _, rel := range r.all("Relationship") {
				targets[rel.attrs["Id"]] = path.Join("xl", strings.TrimPrefix(rel.attrs["Target"], "/xl/"))
			}
		}
	}
	var shared []string
	if ss, err := part("xl/sharedStrings.xml"); err == nil {
		r, err := tree(ss)
		if err != nil {
			return err
		}
		for _, si := range r.all("si") {
			var t strings.Builder
			for _, x := range si.all("t") {
				t.WriteString(textOf(x))
			}
			shared = append(shared, t.String())
		}
	}
	for _, sh := range wbTree.all("sheet") {
		target, ok := targets[sh.attrs["id"]]
		if !ok {
			continue
		}
		data, err := part(target)
		if err != nil {
			return err
		}
		st, err := tree(data)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<h2>%s</h2>", esc(sh.attrs["name"]))
		writeSheet(b, st, shared)
	}
	return nil
}

// writeSheet writes a sheet's cells as a table, its first row the head;
// empty columns between cells stay, so that values keep their columns.
func writeSheet(b *strings.Builder, st *xnode, shared []string) {
	rows := map[int]map[int]string{}
	maxCol := -1
	for _, c := range st.all("c") {
		col, row, ok := cellRef(c.attrs["r"])
		if !ok {
			continue
		}
		var v string
		switch c.attrs["t"] {
		case "s":
			if x := c.child("v"); x != nil {
				if i, err := strconv.Atoi(strings.TrimSpace(textOf(x))); err == nil && i >= 0 && i < len(shared) {
					v = shared[i]
				}
			}
		case "inlineStr":
			if is := c.child("is"); is != nil {
				v = textOf(is)
			}
		default:
			if x := c.child("v"); x != nil {
				v = textOf(x)
			}
		}
		if strings.TrimSpace(v) == "" {
			continue
		}
		if rows[row] == nil {
			rows[row] = map[int]string{}
		}
		rows[row][col] = v
		maxCol = max(maxCol, col)
	}
	if len(rows) == 0 {
		return
	}
	order := make([]int, 0, len(rows))
	for r := range rows {
		order = append(order, r)
	}
	sort.Ints(order)
	b.WriteString("<table>")
	for i, r := range order {
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for col := 0; col <= maxCol; col++ {
			fmt.Fprintf(b, "<%s>%s</%s>", tag, esc(rows[r][col]), tag)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
}

// cellRef reads a cell reference (B12) as a column (from 0) and a row.
func cellRef(ref string) (col, row int, ok bool) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		col = col*26 + int(ref[i]-'A'+1)
		i++
	}
	if i == 0 || i == len(ref) || col > 16384 {
		return 0, 0, false
	}
	row, err := strconv.Atoi(ref[i:])
	if err != nil || row < 1 {
		return 0, 0, false
	}
	return col - 1, row, true
}
