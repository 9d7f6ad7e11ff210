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
// its address.
type Spool struct {
	f     *os.File
	w     *bufio.Writer
	pages int
}

// NewSpool creates an empty spool in dir (the system's temporary
// directory when dir is "").
func NewSpool(dir string) (*Spool, error) {
	f, err := os.CreateTemp(dir, "crawler-pages-*.spool")
	if err != nil {
		return nil, fmt.Errorf("spool of pages: %w", err)
	}
	return &Spool{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// Close removes the spool's file.
func (s *Spool) Close() error {
	err := s.f.Close()
	if rmErr := os.Remove(s.f.Name()); err == nil {
		err = rmErr
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
// were added. Readers are independent of each other.
func (s *Spool) Read() (*SpoolReader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("spool of pages: %w", err)
	}
	f, err := os.Open(s.f.Name())
	if err != nil {
		return nil, fmt.Errorf("spool of pages: %w", err)
	}
	return &SpoolReader{f: f, r: bufio.NewReaderSize(f, 1<<16), left: s.pages}, nil
}

// Each calls fn with every page, in the order they were added, and
// stops at fn's first error.
func (s *Spool) Each(fn func(SitePage) error) error {
	r, err := s.Read()
	if err != nil {
		return err
	}
	defer r.Close()
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

// SpoolReader reads a spool's pages.
type SpoolReader struct {
	f    *os.File
	r    *bufio.Reader
	left int
}

// Close closes the reader.
func (r *SpoolReader) Close() error { return r.f.Close() }

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
