package kernel

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

type worker struct {
	name   string
	run    func(ctx context.Context) error
	logger hclog.Logger
}

// healthyAfter is how long a worker must run before its backoff resets.
const healthyAfter = time.Minute

// Run runs every registered worker until ctx ends, restarting a worker that
// fails (error or panic) after a delay that doubles from one second to one
// minute. It returns when all workers have returned: nil, or an error if Run
// was already called.
func (k *Kernel) Run(ctx context.Context) error {
	k.mu.Lock()
	if k.running {
		k.mu.Unlock()
		return errors.New("kernel: Run called twice")
	}
	k.running = true
	workers := k.workers
	k.mu.Unlock()

	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() { k.supervise(ctx, w) })
	}
	wg.Wait()
	return nil
}

func (k *Kernel) supervise(ctx context.Context, w worker) {
	delay := k.backoffMin
	for {
		started := time.Now()
		err := runOnce(ctx, w)
		if ctx.Err() != nil {
			w.logger.Debug("worker stopped")
			return
		}
		if err == nil {
			w.logger.Info("worker finished")
			return
		}
		if time.Since(started) >= healthyAfter {
			delay = k.backoffMin
		}
		w.logger.Error("worker failed; restarting", "worker", w.name, "error", err, "in", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, k.backoffMax)
	}
}

// runOnce runs w once, turning a panic into an error so one bad worker does
// not take the board down.
func runOnce(ctx context.Context, w worker) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return w.run(ctx)
}
