package main

import (
	"context"
	"fmt"
	"sync"
)

// The projects of the scenarios under load (kill, rolling): writers post
// in load; a probe waits alone in quiet, where nobody else writes, so its
// call surely is held.
const loadProject, quietProject = "load", "quiet"

// crew is a load scenario's agents, each with a session on every board.
type crew struct {
	writers  []*roaming
	watchers []*watcher
	probe    *watcher
	waiter   *roaming // holds pact_wait beside the probe (scenario 2)
}

// hire makes the two projects and the agents: writers posting in the load
// project, two watchers of it (with homes, watcher i's home is board i)
// and a probe and a waiter in the quiet one.
func (k *killRun) hire(ctx context.Context, writers int, homes bool) (*crew, error) {
	for _, p := range []string{loadProject, quietProject} {
		if err := k.s.project(ctx, p); err != nil {
			return nil, err
		}
	}
	c := &crew{writers: make([]*roaming, writers), watchers: make([]*watcher, 2)}
	for i := range c.writers {
		a, err := k.s.agent(ctx, fmt.Sprintf("writer-%d", i), loadProject)
		if err != nil {
			return nil, err
		}
		c.writers[i] = k.roam(a, i)
	}
	for i := range c.watchers {
		a, err := k.s.agent(ctx, fmt.Sprintf("watcher-%d", i), loadProject)
		if err != nil {
			return nil, err
		}
		c.watchers[i] = &watcher{r: k.roam(a, i), project: loadProject, seen: map[string]bool{}}
		if homes {
			c.watchers[i].home = i % len(k.s.boards)
		}
	}
	a, err := k.s.agent(ctx, "probe", quietProject)
	if err != nil {
		return nil, err
	}
	c.probe = &watcher{r: k.roam(a, 0), project: quietProject, seen: map[string]bool{}}
	if a, err = k.s.agent(ctx, "waiter", quietProject); err != nil {
		return nil, err
	}
	c.waiter = k.roam(a, 0)
	return c, nil
}

// runLoad runs write for every writer and watch for every watcher until
// stop is called; stop waits for them and returns every task the writers
// were told was posted.
func (c *crew) runLoad(ctx context.Context, write func(context.Context, *roaming, string) []string,
	watch func(context.Context, *watcher)) (stop func() []string) {
	loadCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	acked := make([][]string, len(c.writers))
	for i, w := range c.writers {
		wg.Go(func() { acked[i] = write(loadCtx, w, loadProject) })
	}
	for _, w := range c.watchers {
		wg.Go(func() { watch(loadCtx, w) })
	}
	return func() []string {
		cancel()
		wg.Wait()
		var all []string
		for _, a := range acked {
			all = append(all, a...)
		}
		return all
	}
}
