package kernel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type workerModule struct {
	run func(ctx context.Context) error
}

func (workerModule) Name() string { return "work" }
func (m workerModule) Register(h *Host) error {
	h.Worker("job", m.run)
	return nil
}

func fastKernel() *Kernel {
	k := New(Deps{})
	k.backoffMin, k.backoffMax = time.Millisecond, 4*time.Millisecond
	return k
}

func TestFailingWorkersAreRestarted(t *testing.T) {
	k := fastKernel()
	var runs atomic.Int32
	require.NoError(t, k.Register(workerModule{func(ctx context.Context) error {
		switch runs.Add(1) {
		case 1:
			return errors.New("lost the connection")
		case 2:
			panic("bug")
		}
		<-ctx.Done()
		return ctx.Err()
	}}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- k.Run(ctx) }()
	require.Eventually(t, func() bool { return runs.Load() == 3 }, 5*time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	require.Equal(t, int32(3), runs.Load())
	require.ErrorContains(t, k.Run(ctx), "twice")
	require.ErrorContains(t, k.Register(workerModule{}), "already running")
}

func TestFinishedWorkersAreNotRestarted(t *testing.T) {
	k := fastKernel()
	var runs atomic.Int32
	require.NoError(t, k.Register(workerModule{func(context.Context) error {
		runs.Add(1)
		return nil
	}}))
	require.NoError(t, k.Run(context.Background()), "Run returns once every worker has")
	require.Equal(t, int32(1), runs.Load())
}

func TestRunWithoutWorkersReturns(t *testing.T) {
	require.NoError(t, New(Deps{}).Run(context.Background()))
}
