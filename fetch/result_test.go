package fetch

import (
	"testing"
)

func TestIsHTMLType(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/html": true, "text/html; charset=utf-8": true, "application/xhtml+xml": true, "": true,
		"application/pdf": false, "image/png": false, "application/json": false, "text/plain": false,
	} {
		if got := IsHTMLType(ct); got != want {
			t.Errorf("IsHTMLType(%q) = %v, want %v", ct, got, want)
		}
	}
}
