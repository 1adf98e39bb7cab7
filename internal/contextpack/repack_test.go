package contextpack

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/escalation"
)

// overflow stands for llm.ContextOverflowError: it asks for three
// quarters of what was packed.
type overflow struct{ prompt, limit int }

func (o *overflow) Error() string {
	return fmt.Sprintf("prompt is too long: %d tokens > %d maximum", o.prompt, o.limit)
}

func (o *overflow) SmallerBudget(packed int) int { return packed * 3 / 4 }

func TestWithRepack(t *testing.T) {
	t.Parallel()
	other := errors.New("rate limited")
	tests := []struct {
		name       string
		answers    []error // send's result per call
		wantLimits []int
		wantErr    error // nil, other, or an escalation
		escalates  bool
	}{
		{"fits the first time", []error{nil}, []int{NoLimit}, nil, false},
		{"overflow, then fits repacked", []error{&overflow{215000, 200000}, nil}, []int{NoLimit, 7500}, nil, false},
		{"overflow twice escalates with the figures", []error{&overflow{215000, 200000}, &overflow{201000, 200000}}, []int{NoLimit, 7500}, nil, true},
		{"another error is not repacked", []error{fmt.Errorf("call: %w", other)}, []int{NoLimit}, other, false},
		{"another error on the repack is returned", []error{&overflow{215000, 200000}, other}, []int{NoLimit, 7500}, other, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var limits []int
			used, err := WithRepack("sub-work-item 2", NoLimit, func(limit int) (int, error) {
				limits = append(limits, limit)
				packed := 10000
				if limit != NoLimit {
					packed = limit - 100
				}
				return packed, tt.answers[len(limits)-1]
			})
			assert.Equal(t, tt.wantLimits, limits)
			assert.Equal(t, limits[len(limits)-1], used, "the limit the last prompt was packed to")
			switch {
			case tt.escalates:
				var esc *escalation.Error
				require.ErrorAs(t, err, &esc)
				assert.Equal(t, CodeContextOverflow, esc.Code)
				for _, figure := range []string{"sub-work-item 2", "from 10000 to 7400 tokens (limit 7500)", "215000 tokens > 200000", "201000 tokens > 200000"} {
					assert.Contains(t, esc.Reason, figure)
				}
			case tt.wantErr != nil:
				assert.ErrorIs(t, err, tt.wantErr)
			default:
				assert.NoError(t, err)
			}
		})
	}
}

// TestWithRepackStartsFromTheGivenLimit: a later attempt of the same work
// starts from the limit an earlier repack settled on.
func TestWithRepackStartsFromTheGivenLimit(t *testing.T) {
	t.Parallel()
	var limits []int
	used, err := WithRepack("architecture of #1", 7500, func(limit int) (int, error) {
		limits = append(limits, limit)
		return limit - 100, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{7500}, limits)
	assert.Equal(t, 7500, used)
}
