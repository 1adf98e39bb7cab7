package server

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func body(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }

func TestDeliveriesForgetTheLeastRecentlyAcceptedBeyondTheBound(t *testing.T) {
	t.Parallel()
	d, err := newDeliveries(2, time.Hour)
	require.NoError(t, err)
	d.remember("d-1", body("one"))
	d.remember("d-2", body("two"))
	assert.True(t, d.seenID("d-1"))
	assert.True(t, d.seenBody(body("one")))

	d.remember("d-3", body("three"))
	assert.False(t, d.seenID("d-1"), "the oldest id is forgotten")
	assert.False(t, d.seenBody(body("one")), "the oldest body is forgotten")
	for _, id := range []string{"d-2", "d-3"} {
		assert.True(t, d.seenID(id), id)
	}
	assert.True(t, d.seenBody(body("two")))
	assert.True(t, d.seenBody(body("three")))
}

func TestDeliveriesWithoutAnIDRememberOnlyTheBody(t *testing.T) {
	t.Parallel()
	d, err := newDeliveries(4, time.Hour)
	require.NoError(t, err)
	d.remember("", body("anonymous"))
	assert.False(t, d.seenID(""), "no id is never a duplicate id")
	assert.True(t, d.seenBody(body("anonymous")))
}

func TestDeliveriesForgetBodiesAfterTheWindow(t *testing.T) {
	t.Parallel()
	const window = 50 * time.Millisecond
	d, err := newDeliveries(4, window)
	require.NoError(t, err)
	// Only the side of the window that a wait guarantees is checked here:
	// "still remembered" would race a slow machine; the one-hour tests
	// above cover it.
	d.remember("d-1", body("one"))
	time.Sleep(window + 10*time.Millisecond)
	assert.False(t, d.seenBody(body("one")), "outside the window the body is new again")
	assert.True(t, d.seenID("d-1"), "ids are not bounded by the window")
}

func TestDeliveriesRefuseAZeroBound(t *testing.T) {
	t.Parallel()
	_, err := newDeliveries(0, time.Hour)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "0 entries")
}

// TestDeliveriesAreSafeForConcurrentUse is for -race: the caches' own
// locks keep each one consistent under concurrent writers and readers.
func TestDeliveriesAreSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	d, err := newDeliveries(64, time.Hour)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				id := fmt.Sprintf("g%d-%d", g, i)
				d.remember(id, body(id))
				d.seenID(id)
				d.seenBody(body(id))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 64, d.ids.Len())
	assert.Equal(t, 64, d.bodies.Len())
}
