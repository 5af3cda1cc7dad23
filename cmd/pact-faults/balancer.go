package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// balancer is the tiny load balancer of scenario rolling: it asks every
// board's /readyz every 100 ms, as a load balancer's health check does, and
// hands each new call to the next board that last answered 200.
type balancer struct {
	boards []*board

	mu    sync.Mutex
	ready []bool
	next  int
}

const checkEvery = 100 * time.Millisecond

// newBalancer checks the boards once, then keeps checking them until ctx ends.
func newBalancer(ctx context.Context, boards []*board) *balancer {
	lb := &balancer{boards: boards, ready: make([]bool, len(boards))}
	hc := &http.Client{Timeout: 500 * time.Millisecond}
	lb.check(ctx, hc)
	go func() {
		for ctx.Err() == nil {
			sleep(ctx, checkEvery)
			lb.check(ctx, hc)
		}
	}()
	return lb
}

// check asks every board's /readyz at once and records which answered 200.
func (lb *balancer) check(ctx context.Context, hc *http.Client) {
	var wg sync.WaitGroup
	for i, b := range lb.boards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok := readyz(ctx, hc, b.url) == http.StatusOK
			lb.mu.Lock()
			lb.ready[i] = ok
			lb.mu.Unlock()
		}()
	}
	wg.Wait()
}

// readyz is the status /readyz answered, or 0 when none came.
func readyz(ctx context.Context, hc *http.Client, url string) int {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	res, err := hc.Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// pick is the next ready board other than avoid (-1: any), round robin; it
// waits up to 5 s for one.
func (lb *balancer) pick(ctx context.Context, avoid int) (int, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		lb.mu.Lock()
		for range lb.ready {
			i := lb.next
			lb.next = (lb.next + 1) % len(lb.ready)
			if lb.ready[i] && i != avoid {
				lb.mu.Unlock()
				return i, nil
			}
		}
		lb.mu.Unlock()
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, fmt.Errorf("no board other than %d was ready for 5s", avoid)
		}
		sleep(ctx, 20*time.Millisecond)
	}
}
