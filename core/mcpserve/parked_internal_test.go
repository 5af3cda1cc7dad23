package mcpserve

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestParkedCallsMayParkWhileSomeoneWaits: calls park and end while
// WaitParked waits (run under -race, a WaitGroup here was reported), and
// the wait ends once none is parked; with none parked it does not wait.
func TestParkedCallsMayParkWhileSomeoneWaits(t *testing.T) {
	var p parkedCalls
	select {
	case <-p.none():
	default:
		t.Fatal("nothing parked: nothing to wait for")
	}
	p.add()
	waited := make(chan struct{})
	go func() { <-p.none(); close(waited) }()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { p.add(); p.done() })
	}
	wg.Wait()
	require.Never(t, func() bool {
		select {
		case <-waited:
			return true
		default:
			return false
		}
	}, 50*time.Millisecond, 5*time.Millisecond, "one call is still parked")
	p.done()
	require.Eventually(t, func() bool {
		select {
		case <-waited:
			return true
		default:
			return false
		}
	}, 5*time.Second, 5*time.Millisecond, "the last parked call ended")
}
