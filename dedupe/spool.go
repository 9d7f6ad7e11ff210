package dedupe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Spool holds a crawl's pages (SitePage) in a temporary file, so that
// the passes over them (Survey, Tally, then each page's share) need
// memory for a page at a time, whatever the number of pages. A page
// takes 16 bytes for each distinct fragment and heading it holds, and
// its address. The file has no name once created (where the system
// allows it): a process killed while it holds one leaves nothing behind.
type Spool struct {
	f     *os.File
	w     *bufio.Writer
	pages int
	// named: the file could not be unlinked at once; Close removes it.
	named bool
}

// NewSpool creates an empty spool in dir (the system's temporary
// directory when dir is "").
func NewSpool(dir string) (*Spool, error) {
	f, err := os.CreateTemp(dir, "crawler-pages-*.spool")
	if err != nil {
		return nil, fmt.Errorf("spool of pages: %w", err)
	}
	named := os.Remove(f.Name()) != nil // the open file stays readable
	return &Spool{f: f, w: bufio.NewWriterSize(f, 1<<16), named: named}, nil
}

// Close closes the spool's file (and removes it if it still has a name).
func (s *Spool) Close() error {
	err := s.f.Close()
	if s.named {
		if rmErr := os.Remove(s.f.Name()); err == nil {
			err = rmErr
		}
	}
	return err
}

// Pages is how many pages the spool holds.
func (s *Spool) Pages() int { return s.pages }

// Add appends a page.
func (s *Spool) Add(p SitePage) error {
	var buf [binary.MaxVarintLen64]byte
	put := func(v int64) {
		n := binary.PutVarint(buf[:], v)
		_, _ = s.w.Write(buf[:n]) // checked once the page is written
	}
	put(p.ID)
	put(int64(p.Depth))
	put(int64(p.Fragments))
	for _, str := range []string{p.Rank, p.URL} {
		put(int64(len(str)))
		_, _ = s.w.WriteString(str)
	}
	for _, hashes := range [][]Hash{p.Hashes, p.Headings} {
		put(int64(len(hashes)))
		for _, h := range hashes {
			_, _ = s.w.Write(h[:])
		}
	}
	// A bufio.Writer keeps its first error and answers every later write
	// with it.
	if _, err := s.w.Write(nil); err != nil {
		return fmt.Errorf("spool of pages: %w", err)
	}
	s.pages++
	return nil
}

// Read returns a reader of the pages added so far, in the order they
// were added. Readers are independent of each other and of later Adds.
func (s *Spool) Read() (*SpoolReader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("spool of pages: %w", err)
	}
	size, err := s.f.Seek(0, io.SeekCurrent) // writes only append
	if err != nil {
		return nil, fmt.Errorf("spool of pages: %w", err)
	}
	return &SpoolReader{r: bufio.NewReaderSize(io.NewSectionReader(s.f, 0, size), 1<<16), left: s.pages}, nil
}

// Each calls fn with every page, in the order they were added, and
// stops at fn's first error.
func (s *Spool) Each(fn func(SitePage) error) error {
	r, err := s.Read()
	if err != nil {
		return err
	}
	for {
		p, ok, err := r.Next()
		if err != nil || !ok {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// SpoolReader reads a spool's pages; it needs no closing (the spool's
// Close ends it).
type SpoolReader struct {
	r    *bufio.Reader
	left int
}

// Next returns the next page, or false when all were read.
func (r *SpoolReader) Next() (SitePage, bool, error) {
	if r.left == 0 {
		return SitePage{}, false, nil
	}
	p, err := r.page()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return SitePage{}, false, fmt.Errorf("spool of pages: %w", err)
	}
	r.left--
	return p, true, nil
}

func (r *SpoolReader) page() (SitePage, error) {
	var p SitePage
	var ints [3]int64
	for i := range ints {
		v, err := binary.ReadVarint(r.r)
		if err != nil {
			return p, err
		}
		ints[i] = v
	}
	p.ID, p.Depth, p.Fragments = ints[0], int(ints[1]), int(ints[2])
	for _, str := range []*string{&p.Rank, &p.URL} {
		b, err := r.bytes(1)
		if err != nil {
			return p, err
		}
		*str = string(b)
	}
	for _, hashes := range []*[]Hash{&p.Hashes, &p.Headings} {
		b, err := r.bytes(len(Hash{}))
		if err != nil {
			return p, err
		}
		*hashes = make([]Hash, len(b)/len(Hash{}))
		for i := range *hashes {
			copy((*hashes)[i][:], b[i*len(Hash{}):])
		}
	}
	return p, nil
}

// bytes reads a count, then that many items of size bytes.
func (r *SpoolReader) bytes(size int) ([]byte, error) {
	n, err := binary.ReadVarint(r.r)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 1<<30/int64(size) {
		return nil, fmt.Errorf("a record of %d items", n)
	}
	b := make([]byte, int(n)*size)
	_, err = io.ReadFull(r.r, b)
	return b, err
}
