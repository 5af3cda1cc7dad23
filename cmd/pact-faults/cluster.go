package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/modules/people"
)

// owner is the person who registers the harness's agents.
const owner = "faults-owner"

// shared is N boards on one PostgreSQL: the deployment the scenarios
// attack. The harness reaches the database directly only to register
// agents (as pact-admin would) and to check what the boards wrote.
type shared struct {
	pg     *pgcluster.Throwaway
	dsn    string
	db     *db.DB
	ident  *identity.Service
	people *people.Service
	boards []*board
	dir    string
}

// startShared starts one throwaway PostgreSQL (its server dies with this
// process), a database for the boards, and n boards sharing it; each has
// migrated (the migrations take an advisory lock) and answers /readyz.
func startShared(ctx context.Context, o options, n int) (*shared, error) {
	dir, err := os.MkdirTemp("", "pact-faults-")
	if err != nil {
		return nil, err
	}
	s := &shared{dir: dir}
	fail := func(err error) (*shared, error) { s.close(true, os.Stderr); return nil, err }
	if s.pg, err = pgcluster.StartThrowaway(ctx, throwawaySettings(o)...); err != nil {
		return fail(err)
	}
	if err := s.pg.CreateDatabase(ctx, "pact", ""); err != nil {
		return fail(err)
	}
	s.dsn = s.pg.DSN("pact")
	if s.db, err = db.Open(ctx, s.dsn); err != nil {
		return fail(err)
	}
	// The throwaway server runs with synchronous_commit=off, which is right
	// for tests and wrong here: a commit would be acknowledged before its
	// WAL left PostgreSQL's memory, and an immediate stop (scenario 3)
	// loses it. The boards' sessions get PostgreSQL's default back; fsync
	// stays off, which only an operating system crash would expose.
	if _, err := s.db.ExecContext(ctx, "ALTER DATABASE pact SET synchronous_commit = on"); err != nil {
		return fail(err)
	}
	key := randomKey()
	for i := range n {
		name := fmt.Sprintf("board-%d", i)
		env := map[string]string{"DATABASE_URL": s.dsn, "PACT_SIGNING_KEY": key, "PACT_DATA_DIR": filepath.Join(dir, name)}
		for k, v := range o.boardEnv {
			env[k] = v
		}
		if err := profiledEnv(o, env); err != nil {
			return fail(err)
		}
		b, err := newBoard(name, o.boardBin, filepath.Join(dir, name+".log"), env)
		if err != nil {
			return fail(err)
		}
		s.boards = append(s.boards, b)
	}
	// The first migrates alone; the others then start together.
	if err := s.boards[0].start(ctx); err != nil {
		return fail(err)
	}
	errc := make(chan error, n)
	for _, b := range s.boards[1:] {
		go func() { errc <- b.start(ctx) }()
	}
	for range s.boards[1:] {
		if err := <-errc; err != nil {
			return fail(err)
		}
	}
	keys, err := mandate.ParseKeyring("", key)
	if err != nil {
		return fail(err)
	}
	log := ledger.New(nil)
	s.ident = identity.NewService(s.db, log, nil)
	s.people = people.NewService(s.db, log, s.ident, mandate.NewService(keys, nil))
	if _, err := s.ident.AddHuman(ctx, "", identity.HumanInput{ID: owner, Name: "Fault harness", Role: identity.Owner}); err != nil {
		return fail(err)
	}
	return s, nil
}

func randomKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// project creates a project.
func (s *shared) project(ctx context.Context, id string) error {
	_, err := s.ident.AddProject(ctx, owner, id, id, false)
	return err
}

// agent registers a code agent on projects with the default scopes and
// returns its token and root mandate.
func (s *shared) agent(ctx context.Context, id string, projects ...string) (agentCreds, error) {
	r, err := s.people.RegisterAgent(ctx, owner, people.AgentInput{ID: id, Client: "code", Projects: projects})
	if err != nil {
		return agentCreds{}, fmt.Errorf("register %s: %w", id, err)
	}
	return agentCreds{id: id, token: r.Token, mandate: r.RootMandateID.String()}, nil
}

// verifyLog checks every hash chain of the log, as pact-admin log-verify does.
func (s *shared) verifyLog(ctx context.Context) (entries int64, err error) {
	vs, err := ledger.New(nil).VerifyAll(ctx, s.db, nil)
	if err != nil {
		return 0, err
	}
	for _, chains := range vs {
		for _, v := range chains {
			if !v.OK {
				return entries, fmt.Errorf("log chain %s is broken: %s", v.ChainKey, v.Reason)
			}
			entries += v.Checked
		}
	}
	return entries, nil
}

// queuedAfter waits up to wait for the boards' integrators to place every
// committed log entry, and returns how many still wait.
func (s *shared) queuedAfter(ctx context.Context, wait time.Duration) (int64, error) {
	deadline := time.Now().Add(wait)
	for {
		q, err := ledger.Queued(ctx, s.db)
		if err != nil || q.Pending == 0 || time.Now().After(deadline) {
			return q.Pending, err
		}
		sleep(ctx, 50*time.Millisecond)
	}
}

// audit is what the database holds of the acknowledged tasks.
type audit struct {
	present int      // tasks in the database
	lost    []string // acknowledged tasks that are not
	orphans int      // tasks without the log entry their post commits with: half-written
}

// audit looks up every acknowledged task, and the tasks without a log entry.
func (s *shared) audit(ctx context.Context, acked []string) (audit, error) {
	var a audit
	present := map[string]bool{}
	rows, err := s.db.Pool.Query(ctx, `SELECT id::text FROM tasks`)
	if err != nil {
		return a, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return a, err
		}
		present[id] = true
	}
	if err := rows.Err(); err != nil {
		return a, err
	}
	a.present = len(present)
	for _, id := range acked {
		if !present[id] {
			a.lost = append(a.lost, id)
		}
	}
	err = s.db.Pool.QueryRow(ctx, `SELECT count(*) FROM tasks t
		WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.task_id = t.id)`).Scan(&a.orphans)
	return a, err
}

// close stops the boards, then the database, and removes the directory;
// after a failure (failed) it keeps the directory, where the boards' logs
// are, and says where it is on out.
func (s *shared) close(failed bool, out io.Writer) {
	for _, b := range s.boards {
		_ = b.kill()
	}
	if s.db != nil {
		s.db.Close()
	}
	if s.pg != nil {
		s.pg.Destroy()
	}
	if failed {
		fmt.Fprintf(out, "  the boards' logs are kept in %s\n", s.dir)
		return
	}
	_ = os.RemoveAll(s.dir)
}
