package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/uptrace/bun"
)

// statementsLibrary is PostgreSQL's own module that counts each statement's
// calls and time; it must be loaded when the server starts.
const statementsLibrary = "pg_stat_statements"

// throwawaySettings are the server settings a run asks of the throwaway
// PostgreSQL: with -pg-statements, the statements' statistics loaded.
func throwawaySettings(o options) []string {
	if o.pgStatements <= 0 {
		return nil
	}
	return []string{"shared_preload_libraries=" + statementsLibrary, "pg_stat_statements.track_planning=on"}
}

// resetStatements starts counting the statements afresh, once the day is
// set up, so that only the day's own are counted.
func resetStatements(ctx context.Context, o options, db bun.IDB) error {
	if o.pgStatements <= 0 {
		return nil
	}
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS "+statementsLibrary); err != nil {
		return fmt.Errorf("pg_stat_statements (PostgreSQL's contrib modules are needed): %w", err)
	}
	_, err := db.ExecContext(ctx, "SELECT pg_stat_statements_reset()")
	return err
}

// statementRow is one statement's figures over the day.
type statementRow struct {
	Calls  int64   `bun:"calls"`
	Exec   float64 `bun:"exec_ms"`
	Plan   float64 `bun:"plan_ms"`
	Rows   int64   `bun:"rows"`
	Blocks int64   `bun:"blocks"`
	Query  string  `bun:"query"`
}

// reportStatements prints the day's statements that took PostgreSQL the
// most time (execution and planning), with their share of the whole.
func reportStatements(ctx context.Context, o options, db bun.IDB, out io.Writer) error {
	if o.pgStatements <= 0 {
		return nil
	}
	var total struct {
		Calls int64   `bun:"calls"`
		Ms    float64 `bun:"ms"`
	}
	if err := db.NewRaw(`SELECT coalesce(sum(calls), 0)::bigint AS calls,
		coalesce(sum(total_exec_time + total_plan_time), 0) AS ms FROM pg_stat_statements`).Scan(ctx, &total); err != nil {
		return err
	}
	var rows []statementRow
	if err := db.NewRaw(`SELECT calls, total_exec_time AS exec_ms, total_plan_time AS plan_ms, rows,
		shared_blks_hit + shared_blks_read AS blocks, query
		FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT ?`, o.pgStatements).Scan(ctx, &rows); err != nil {
		return err
	}
	fmt.Fprintf(out, "  PostgreSQL's statements over the day: %d calls, %.0f ms executing and planning; the %d longest:\n",
		total.Calls, total.Ms, len(rows))
	fmt.Fprintf(out, "  %6s %9s %7s %8s %8s %8s  %s\n", "share", "calls", "mean", "exec ms", "plan ms", "blocks", "statement")
	for _, r := range rows {
		share := 0.0
		if total.Ms > 0 {
			share = 100 * (r.Exec + r.Plan) / total.Ms
		}
		mean := 0.0
		if r.Calls > 0 {
			mean = (r.Exec + r.Plan) / float64(r.Calls)
		}
		fmt.Fprintf(out, "  %5.1f%% %9d %6.2fms %8.0f %8.0f %8d  %s\n", share, r.Calls, mean, r.Exec, r.Plan, r.Blocks, oneLine(r.Query, 110))
	}
	return nil
}

// oneLine is q on one line, its runs of white space made one space, cut to
// at most n runes.
func oneLine(q string, n int) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return q
}
