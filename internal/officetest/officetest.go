// Package officetest writes small office documents for tests: a .docx,
// an .odt and an .xlsx with headings, paragraphs, a list, a table and a
// link, in the parts and markup their applications write.
package officetest

import (
	"archive/zip"
	"bytes"
)

// archive zips parts (name, content) in order.
func archive(parts ...[2]string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, p := range parts {
		w, _ := z.Create(p[0])
		_, _ = w.Write([]byte(p[1]))
	}
	_ = z.Close()
	return buf.Bytes()
}

// DOCX is a Word document: a title, a heading, a paragraph with bold and
// a link, two list items and a table.
func DOCX() []byte {
	const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	return archive(
		[2]string{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		[2]string{"word/styles.xml", `<?xml version="1.0"?><w:styles ` + w + `>` +
			`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style></w:styles>`},
		[2]string{"word/_rels/document.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/harbour" TargetMode="External"/></Relationships>`},
		[2]string{"word/document.xml", `<?xml version="1.0"?><w:document ` + w + `><w:body>` +
			`<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>Harbour report</w:t></w:r></w:p>` +
			`<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Ferries</w:t></w:r></w:p>` +
			`<w:p><w:r><w:t xml:space="preserve">The ferry leaves at </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>nine</w:t></w:r>` +
			`<w:r><w:t xml:space="preserve"> each morning; see </w:t></w:r><w:hyperlink r:id="rId9"><w:r><w:t>the timetable</w:t></w:r></w:hyperlink><w:r><w:t>.</w:t></w:r></w:p>` +
			`<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Tickets at the pier</w:t></w:r></w:p>` +
			`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Bicycles travel free</w:t></w:r></w:p>` +
			`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Route</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Minutes</w:t></w:r></w:p></w:tc></w:tr>` +
			`<w:tr><w:tc><w:p><w:r><w:t>Island</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>40</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
			`<w:sectPr/></w:body></w:document>`})
}

// ODT is an OpenDocument text of the same content.
func ODT() []byte {
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"`
	return archive(
		[2]string{"mimetype", "application/vnd.oasis.opendocument.text"},
		[2]string{"content.xml", `<?xml version="1.0"?><office:document-content ` + ns + `><office:body><office:text>` +
			`<text:h text:outline-level="1">Harbour report</text:h><text:h text:outline-level="2">Ferries</text:h>` +
			`<text:p>The ferry leaves at nine each morning; see <text:a xlink:href="https://example.com/harbour">the timetable</text:a>.</text:p>` +
			`<text:list><text:list-item><text:p>Tickets at the pier</text:p></text:list-item><text:list-item><text:p>Bicycles travel free</text:p></text:list-item></text:list>` +
			`<table:table><table:table-row><table:table-cell><text:p>Route</text:p></table:table-cell><table:table-cell><text:p>Minutes</text:p></table:table-cell></table:table-row>` +
			`<table:table-row><table:table-cell><text:p>Island</text:p></table:table-cell><table:table-cell><text:p>40</text:p></table:table-cell></table:table-row></table:table>` +
			`</office:text></office:body></office:document-content>`})
}

// XLSX is a workbook of one sheet, Ferries: a head row and two rows, one
// with a gap between its cells.
func XLSX() []byte {
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	return archive(
		[2]string{"xl/workbook.xml", `<?xml version="1.0"?><workbook ` + ns + `><sheets><sheet name="Ferries" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		[2]string{"xl/_rels/workbook.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		[2]string{"xl/sharedStrings.xml", `<?xml version="1.0"?><sst ` + ns + `><si><t>Route</t></si><si><t>Minutes</t></si><si><t>Island</t></si><si><t>Lighthouse</t></si></sst>`},
		[2]string{"xl/worksheets/sheet1.xml", `<?xml version="1.0"?><worksheet ` + ns + `><sheetData>` +
			`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>Note</t></is></c></row>` +
			`<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>40</v></c></row>` +
			`<row r="3"><c r="A3" t="s"><v>3</v></c><c r="C3" t="inlineStr"><is><t>Summer only</t></is></c></row>` +
			`</sheetData></worksheet>`})
}
