package secrets

import (
	"bytes"
	"io"
	"sync"
)

// maxPending bounds the unterminated line a Writer holds back.
const maxPending = 64 << 10

// Writer redacts what a child process (a domain service, a twin) writes
// before it reaches the log stream. It redacts whole lines, so a secret is
// found whatever chunks the output arrives in; an unterminated line is
// held until its newline, Flush, or maxPending bytes. Safe for concurrent
// use.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	r       *Redactor
	pending []byte
}

// NewWriter returns a Writer redacting with r into w.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{w: w, r: r} }

// Write implements io.Writer. It reports len(p) written once p is
// buffered or passed on.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	cut := bytes.LastIndexByte(w.pending, '\n') + 1
	if cut == 0 && len(w.pending) < maxPending {
		return len(p), nil
	}
	if cut == 0 {
		cut = len(w.pending)
	}
	err := w.emit(cut)
	return len(p), err
}

// Flush writes the held-back unterminated line, if any.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.emit(len(w.pending))
}

// emit writes the first n pending bytes redacted and keeps the rest.
func (w *Writer) emit(n int) error {
	if n == 0 {
		return nil
	}
	_, err := io.WriteString(w.w, w.r.Redact(string(w.pending[:n])))
	w.pending = append(w.pending[:0], w.pending[n:]...)
	return err
}
