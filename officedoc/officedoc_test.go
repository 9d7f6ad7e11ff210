package officedoc

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/durablecrawl/crawler/internal/officetest"
)

// TestDocuments reads each kind into the HTML of what it shows.
func TestDocuments(t *testing.T) {
	for _, c := range []struct {
		kind string
		data []byte
		want []string
	}{
		{DOCX, officetest.DOCX(), []string{"<h1>Harbour report</h1>", "<h2>Ferries</h2>", "The ferry leaves at <strong>nine</strong> each morning",
			`<a href="https://example.com/harbour">the timetable</a>`, "<ul><li>Tickets at the pier</li><li>Bicycles travel free</li></ul>",
			"<tr><th>Route</th><th>Minutes</th></tr><tr><td>Island</td><td>40</td></tr>"}},
		{ODT, officetest.ODT(), []string{"<h1>Harbour report</h1>", "<h2>Ferries</h2>", `<a href="https://example.com/harbour">the timetable</a>`,
			"<li><p>Tickets at the pier</p></li>", "<tr><th>Route</th><th>Minutes</th></tr><tr><td>Island</td><td>40</td></tr>"}},
		{XLSX, officetest.XLSX(), []string{"<h2>Ferries</h2>", "<tr><th>Route</th><th>Minutes</th><th>Note</th></tr>",
			"<tr><td>Island</td><td>40</td><td></td></tr>", "<tr><td>Lighthouse</td><td></td><td>Summer only</td></tr>"}},
	} {
		if k := Kind(c.data); k != c.kind {
			t.Errorf("Kind = %q, want %q", k, c.kind)
		}
		got, err := HTML(c.data, c.kind)
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the HTML lacks %q:\n%s", c.kind, w, got)
			}
		}
	}
}

// TestNotDocuments: a zip that is no document, a broken one, and a part
// too large inflated are refused, not guessed at.
func TestNotDocuments(t *testing.T) {
	if Kind([]byte("plain text")) != "" {
		t.Error("text taken for a document")
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("word/document.xml")
	_, _ = w.Write(bytes.Repeat([]byte(" "), MaxPartBytes+10))
	_ = z.Close()
	if _, err := HTML(buf.Bytes(), DOCX); !errors.Is(err, ErrNotDocument) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a part too large: %v", err)
	}
	broken := officetest.DOCX()[:200]
	if _, err := HTML(broken, DOCX); !errors.Is(err, ErrNotDocument) {
		t.Errorf("a broken archive: %v", err)
	}
	if _, err := HTML(officetest.ODT(), DOCX); !errors.Is(err, ErrNotDocument) {
		t.Errorf("an .odt read as a .docx: %v", err)
	}
}
