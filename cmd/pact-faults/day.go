package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/modules/pacts"
)

// runDay is the load profile of make load (docs/benchmarks.md, "A working
// day"): agents in projects on boards sharing one PostgreSQL, from this
// process. A quarter hold pact_events and claim what they are offered,
// tell its poster on the task and close it with a handoff, or defer one in
// ten to a person; the rest pause between calls of a working day's mix:
// lists, posts, notes, and pact reads, posts and decisions in the pacts
// they sit in. People in the console (day_people.go) answer the deferred
// tasks and the decisions. It reports each call type's calls/s, p50 and p99,
// how long a posted task took to reach a holder (the wake latency), and
// how far the log's integration fell behind; it fails when a call is
// refused as unavailable or goes unanswered.
func runDay(ctx context.Context, o options, out io.Writer) (err error) {
	// The people sign in to the console through local sign-in links,
	// which a board with DATABASE_URL refuses unless told otherwise.
	env := map[string]string{"PACT_CONSOLE_LOCAL_SIGNIN": "on"}
	maps.Copy(env, o.boardEnv)
	o.boardEnv = env
	s, err := startShared(ctx, o, o.boards)
	if err != nil {
		return err
	}
	defer func() { s.close(err != nil, out) }()
	d := newDay(s, o, "", nil)
	if err := d.hire(ctx); err != nil {
		return err
	}
	if err := d.seatPeople(ctx); err != nil {
		return err
	}
	d.describe(out)
	if err := resetStatements(ctx, o, s.db); err != nil {
		return err
	}
	run, stop := context.WithTimeout(ctx, o.dayFor)
	defer stop()
	elapsed, lag := d.play(run, out)
	if o.picture != "" {
		if err := d.writePicture(elapsed); err != nil {
			return err
		}
	}
	if err := reportStatements(ctx, o, s.db, out); err != nil {
		return err
	}
	return d.report(out, elapsed, lag)
}

// newDay is a day on s's boards. Its projects, agents and people are
// named with prefix; its agents reach the boards at entry (nil: each
// board's own URL, roaming over them).
func newDay(s *shared, o options, prefix string, entry []string) *dayRun {
	if entry == nil {
		entry = boardURLs(s.boards)
	}
	return &dayRun{s: s, st: newStats(), o: o, prefix: prefix, entry: entry, posted: map[string]time.Time{},
		told: map[string]time.Time{}, deferred: map[string]time.Time{}}
}

// describe prints what the day runs.
func (d *dayRun) describe(out io.Writer) {
	fmt.Fprintf(out, "  %d agents (%d holding pact_events) in %d projects, %d pacts, %d people in the console, on %d boards, for %s\n",
		len(d.workers)+len(d.holders), len(d.holders), d.o.projects, len(d.pacts), len(d.people), len(d.s.boards), d.o.dayFor)
}

// play runs the day until ctx ends and prints the boards' and
// PostgreSQL's CPU and memory over it; it returns how long it ran and the
// longest the log's queue held an entry.
func (d *dayRun) play(ctx context.Context, out io.Writer) (time.Duration, time.Duration) {
	var wg sync.WaitGroup
	for _, h := range d.holders {
		wg.Go(func() { d.hold(ctx, h) })
	}
	for _, w := range d.workers {
		wg.Go(func() { d.work(ctx, w) })
	}
	for _, p := range d.people {
		wg.Go(func() { d.attend(ctx, p) })
	}
	lag := d.watchQueue(ctx)
	var profiled <-chan []string
	if d.o.profileDir != "" {
		profiled = d.profileBoards(ctx)
	}
	boardsBefore, pgBefore := procUsage(d.boardPids()...), procUsage(d.s.pg.Pid())
	d.st.keepTimes()
	callsBefore := d.st.answered()
	start := time.Now()
	wg.Wait()
	elapsed := time.Since(start)
	boards, pg := procUsage(d.boardPids()...), procUsage(d.s.pg.Pid())
	boardCPU, pgCPU := boards.cpu-boardsBefore.cpu, pg.cpu-pgBefore.cpu
	fmt.Fprintf(out, "  boards (%d, with their plugins): %.2f cores, %d MB resident; PostgreSQL (server and backends): %.2f cores, "+
		"%d MB resident (shared buffers counted in every backend)\n", len(d.s.boards),
		boardCPU.Seconds()/elapsed.Seconds(), boards.rss>>20, pgCPU.Seconds()/elapsed.Seconds(), pg.rss>>20)
	if calls := d.st.answered() - callsBefore; calls > 0 {
		fmt.Fprintf(out, "  CPU per answered call (%d calls): boards %s, PostgreSQL %s\n", calls,
			round(boardCPU/time.Duration(calls)), round(pgCPU/time.Duration(calls)))
	}
	if profiled != nil {
		for _, line := range <-profiled {
			fmt.Fprintf(out, "  %s\n", line)
		}
	}
	return elapsed, <-lag
}

// writePicture writes the SVG of latency over time to o.picture.
func (d *dayRun) writePicture(elapsed time.Duration) error {
	f, err := os.Create(d.o.picture)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("make load: %d agents in %d projects, %d pacts, %d boards, %s",
		d.o.agents, d.o.projects, d.o.pacts, len(d.s.boards), time.Now().UTC().Format("2006-01-02"))
	if err := d.st.picture(f, title, elapsed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// boardPids are the running boards' process ids.
func (d *dayRun) boardPids() []int {
	var pids []int
	for _, b := range d.s.boards {
		if b.cmd != nil && b.cmd.Process != nil {
			pids = append(pids, b.cmd.Process.Pid)
		}
	}
	return pids
}

// dayRun is one run of the profile.
type dayRun struct {
	s      *shared
	st     *stats
	o      options
	prefix string             // of its projects', agents' and people's ids
	entry  []string           // the URLs its agents call
	placed func(agent string) // told of each agent registered (a router's directory); nil: nobody

	workers, holders []*dayAgent
	pacts            []dayPact
	people           []*dayPerson

	mu       sync.Mutex
	posted   map[string]time.Time // task → when its post was answered, no holder told yet
	told     map[string]time.Time // task → when a holder was told, its post not answered yet
	wakes    []time.Duration      // post answered → a holder was told of it
	deferred map[string]time.Time // task → when its deferral was answered, not resumed yet
	waits    []time.Duration      // deferral answered → a person's resumption answered
	problems []string
}

// dayAgent is one agent of the profile, with a session on every board.
type dayAgent struct {
	r       *roaming
	project string
	pacts   []string
	cursor  int64
	rng     *rand.Rand
}

type dayPact struct{ id, project string }

func (d *dayRun) problem(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.problems) < 20 {
		d.problems = append(d.problems, fmt.Sprintf(format, args...))
	}
}

// hire makes the projects and the agents, a quarter of each project's
// holders, and the pacts, each started by one worker with up to three of
// its project's others seated.
func (d *dayRun) hire(ctx context.Context) error {
	byProject := map[string][]*dayAgent{}
	for p := range d.o.projects {
		if err := d.s.project(ctx, d.projectID(p)); err != nil {
			return err
		}
	}
	for i := range d.o.agents {
		project := d.projectID(i % d.o.projects)
		a, err := d.s.agent(ctx, fmt.Sprintf("%sagent-%04d", d.prefix, i), project)
		if err != nil {
			return err
		}
		if d.placed != nil {
			d.placed(a.id)
		}
		ag := &dayAgent{r: roamOver(d.entry, a, i), project: project, rng: rand.New(rand.NewPCG(uint64(i), 7))}
		// Every fourth agent of each project holds: agent i is the
		// (i / projects)-th of its project.
		if i/d.o.projects%4 == 3 {
			d.holders = append(d.holders, ag)
			continue
		}
		d.workers = append(d.workers, ag)
		byProject[project] = append(byProject[project], ag)
	}
	// The organization's limit of open pacts per project (10 by default) is
	// raised as its owner would through the Admin API (PUT /pact-settings):
	// the pacts module's service, in a logged act of the owner.
	limit := min(1000, max(10, (d.o.pacts+d.o.projects-1)/d.o.projects))
	svc := pacts.NewService(d.s.db, ledger.New(nil), d.s.ident)
	if err := d.s.ident.Act(ctx, owner, identity.Owner, "admin.pact.settings", map[string]any{"open_limit": limit},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, _ *ledger.Entry) error {
			return svc.SetOpenLimit(ctx, tx, p.OrgID, "human:"+p.ID, limit)
		}); err != nil {
		return fmt.Errorf("raise the open pact limit: %w", err)
	}
	for n := range d.o.pacts {
		project := d.projectID(n % d.o.projects)
		seats := byProject[project]
		if len(seats) == 0 {
			continue
		}
		first := n / d.o.projects % len(seats)
		if err := d.startPact(ctx, project, seats, first, n); err != nil {
			return err
		}
	}
	return nil
}

// startPact has seats[first] start pact n and up to three of the next
// seats join it.
func (d *dayRun) startPact(ctx context.Context, project string, seats []*dayAgent, first, n int) error {
	starter := seats[first]
	var invite []map[string]any
	var joiners []*dayAgent
	for k := 1; k <= 3 && k < len(seats); k++ {
		j := seats[(first+k)%len(seats)]
		invite = append(invite, map[string]any{"key": "@" + j.r.agent.id, "prefix": string(rune('A' + k))})
		joiners = append(joiners, j)
	}
	got, code, err := starter.r.next().call(ctx, "create_pact", map[string]any{"mandate_id": starter.r.agent.mandate,
		"project_id": project, "name": fmt.Sprintf("Pact %d", n), "purpose": "Ship the day's work together.", "prefix": "W",
		"invite": invite})
	if code != "" {
		return fmt.Errorf("create_pact: %s: %w", code, err)
	}
	id, _ := got["pact_id"].(string)
	starter.pacts = append(starter.pacts, id)
	for _, j := range joiners {
		if _, code, err := j.r.next().call(ctx, "join_pact", map[string]any{"mandate_id": j.r.agent.mandate, "pact_id": id}); code != "" {
			return fmt.Errorf("join_pact: %s: %w", code, err)
		}
		j.pacts = append(j.pacts, id)
	}
	d.pacts = append(d.pacts, dayPact{id: id, project: project})
	return nil
}

// projectID is the id of the day's project n.
func (d *dayRun) projectID(n int) string { return fmt.Sprintf("%sproj-%d", d.prefix, n) }

// roamOver is an agent with a client on every board (by URL), starting at
// board first (mod their number).
func roamOver(urls []string, a agentCreds, first int) *roaming {
	r := &roaming{agent: a, cur: first % len(urls)}
	for _, u := range urls {
		r.clients = append(r.clients, newClient(a, u))
	}
	return r
}

// boardURLs are the boards' own URLs.
func boardURLs(boards []*board) []string {
	urls := make([]string, len(boards))
	for i, b := range boards {
		urls[i] = b.url
	}
	return urls
}

// watchQueue samples the log's queue every second until ctx ends, and
// sends the longest wait it saw: how far integration fell behind.
func (d *dayRun) watchQueue(ctx context.Context) <-chan time.Duration {
	out := make(chan time.Duration, 1)
	go func() {
		var worst time.Duration
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				out <- worst
				return
			case <-tick.C:
				if q, err := ledger.Queued(context.WithoutCancel(ctx), d.s.db); err == nil {
					worst = max(worst, q.Oldest)
				}
			}
		}
	}()
	return out
}
