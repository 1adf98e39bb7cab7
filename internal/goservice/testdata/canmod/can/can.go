// Package can holds the CAN bus contract of the sample vehicle firmware.
package can

//cogworks:contract SWD-IF-CAN-01 baud_rate
const BaudRate = 500_000

// MaxBusLoad is the highest acceptable bus load.
//
//cogworks:contract SWD-IF-CAN-01 max_bus_load
const MaxBusLoad float64 = 0.25

const (
	//cogworks:contract SWD-IF-CAN-01 messages.BrakePressureFL.can_id
	BrakePressureFLID uint32 = 0x100 + 0x20

	//cogworks:contract SWD-IF-CAN-01 messages.BrakePressureFL.cycle_ms
	BrakePressureFLCycleMS = 2 * baseCycleMS

	//cogworks:contract SWD-IF-CAN-01 connector
	Connector = "JST-PH-4"

	//cogworks:contract SWD-IF-CAN-01 termination_required
	TerminationRequired = true
)

const baseCycleMS = 5

// Frame is one CAN frame.
type Frame struct {
	ID   uint32
	Data []byte
}

// Encode packs a brake pressure reading into a frame.
func Encode(pressure uint16) Frame {
	return Frame{ID: BrakePressureFLID, Data: []byte{byte(pressure >> 8), byte(pressure)}}
}

// Len returns the payload length.
func (f Frame) Len() int { return len(f.Data) }
