// Package telemetry frames vehicle telemetry as CAN messages.
package telemetry

import "fmt"

// Frame is one CAN 2.0A data frame.
type Frame struct {
	ID   uint32
	Data []byte
}

// Validate reports whether the frame fits CAN 2.0A.
func (f Frame) Validate() error {
	if f.ID > 0x7FF {
		return fmt.Errorf("frame id %#x exceeds 11 bits", f.ID)
	}
	if len(f.Data) > 8 {
		return fmt.Errorf("frame %#x carries %d bytes, at most 8", f.ID, len(f.Data))
	}
	return nil
}
