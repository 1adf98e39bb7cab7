package sandbox

import (
	"bytes"
	"fmt"
)

// Output captures up to a limit of a command's output and counts the rest:
// a command printing without end costs the parent bounded memory.
type Output struct {
	buf     bytes.Buffer
	limit   int
	dropped int64
}

// NewOutput returns an Output keeping the first limit bytes (the default
// limit when limit <= 0).
func NewOutput(limit int) *Output {
	if limit <= 0 {
		limit = DefaultLimits().OutputBytes
	}
	return &Output{limit: limit}
}

// Write keeps what fits and discards the rest; it never fails, so that the
// command is not killed by a broken pipe.
func (o *Output) Write(p []byte) (int, error) {
	if room := o.limit - o.buf.Len(); room > 0 {
		o.buf.Write(p[:min(room, len(p))])
		o.dropped += int64(len(p) - min(room, len(p)))
	} else {
		o.dropped += int64(len(p))
	}
	return len(p), nil
}

// Truncated reports whether output was discarded.
func (o *Output) Truncated() bool { return o.dropped > 0 }

// Bytes returns the kept output, followed by a line saying how much was
// discarded when the limit was hit.
func (o *Output) Bytes() []byte {
	if o.dropped == 0 {
		return o.buf.Bytes()
	}
	return fmt.Appendf(bytes.Clone(o.buf.Bytes()), "\n…(output truncated: %d bytes over the %d-byte limit discarded)\n", o.dropped, o.limit)
}
