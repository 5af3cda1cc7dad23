package ledger

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
)

// Witnesses sends every checkpoint to the URLs an operator named
// (PACT_LOG_WITNESSES), each an HTTP POST of the signed note as text/plain
// with the chain in the Pact-Log-Chain header; a 2xx answer acknowledges
// it. Each witness's cursor is a row of log_witnesses, leased while one
// board sends (leased_until), so boards sharing a database never send a
// checkpoint twice at once, and no transaction waits on a witness. A
// failed send is tried again on the next round with the same checkpoint,
// so every witness gets every one, in order, at least once.
type Witnesses struct {
	URLs   []string
	Client *http.Client
}

// ChainHeader names the chain a POSTed checkpoint is of.
const ChainHeader = "Pact-Log-Chain"

// witnessBatch bounds what one round sends one witness.
const witnessBatch = 100

// Register records the witnesses. A new witness's cursor starts at the
// beginning: it gets every checkpoint there is, oldest first.
func (w *Witnesses) Register(ctx context.Context, d *db.DB) error {
	for _, u := range w.URLs {
		if _, err := d.Pool.Exec(ctx, `INSERT INTO log_witnesses (url) VALUES ($1) ON CONFLICT DO NOTHING`, u); err != nil {
			return fmt.Errorf("ledger: register witness: %w", err)
		}
	}
	return nil
}

// Deliver sends each witness what it has not acknowledged, and returns how
// many checkpoints were acknowledged.
func (w *Witnesses) Deliver(ctx context.Context, d *db.DB) (int, error) {
	sent := 0
	var errs []error
	for _, u := range w.URLs {
		n, err := w.deliverTo(ctx, d, u)
		sent += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return sent, errors.Join(errs...)
}

// witnessLease is how long a board has a witness to itself; it stops
// sending with room for one more send's timeout before the lease ends.
const (
	witnessLease       = 2 * time.Minute
	witnessSendTimeout = 10 * time.Second
)

// deliverTo sends one witness its checkpoints under a lease on its row
// (migration 025): no transaction or connection is held while the witness
// answers, and a lease another board took meanwhile keeps its cursor.
func (w *Witnesses) deliverTo(ctx context.Context, d *db.DB, url string) (int, error) {
	token := rand.Text()
	var through int64
	err := d.Pool.QueryRow(ctx, `UPDATE log_witnesses SET leased_until = now() + make_interval(secs => $3), lease_token = $2
		WHERE url = $1 AND (leased_until IS NULL OR leased_until < now()) RETURNING delivered_through`,
		url, token, witnessLease.Seconds()).Scan(&through)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil // another board is sending it
	}
	if err != nil {
		return 0, fmt.Errorf("ledger: witness %s: %w", redactURL(url), err)
	}
	sent, sendErr := w.sendFrom(ctx, d, url, &through, time.Now().Add(witnessLease-2*witnessSendTimeout))
	lastError := ""
	if sendErr != nil {
		lastError = sendErr.Error()
	}
	_, err = d.Pool.Exec(context.WithoutCancel(ctx), `UPDATE log_witnesses SET delivered_through = $3, last_error = nullif($4, ''),
		attempted_at = now(), leased_until = NULL, lease_token = NULL
		WHERE url = $1 AND lease_token = $2`, url, token, through, lastError)
	if err = errors.Join(err, sendErr); err != nil {
		return sent, fmt.Errorf("ledger: witness %s: %w", redactURL(url), err)
	}
	return sent, nil
}

// sendFrom sends url the checkpoints after *through, in order, until one
// fails or stop passes, moving *through past each acknowledged one.
func (w *Witnesses) sendFrom(ctx context.Context, d *db.DB, url string, through *int64, stop time.Time) (int, error) {
	rows, err := d.Pool.Query(ctx, `SELECT id, chain_key, note FROM log_checkpoints WHERE id > $1 ORDER BY id LIMIT $2`,
		*through, witnessBatch)
	if err != nil {
		return 0, err
	}
	type cp struct {
		id          int64
		chain, note string
	}
	todo, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cp, error) {
		var c cp
		return c, r.Scan(&c.id, &c.chain, &c.note)
	})
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, c := range todo {
		if time.Now().After(stop) {
			break // the lease is nearly over: the rest on the next round
		}
		if err := w.send(ctx, url, c.chain, c.note); err != nil {
			return sent, err
		}
		*through = c.id
		sent++
	}
	return sent, nil
}

func (w *Witnesses) send(ctx context.Context, url, chain, note string) error {
	ctx, cancel := context.WithTimeout(ctx, witnessSendTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(note))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set(ChainHeader, chain)
	client := w.Client
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("answered %s", res.Status)
	}
	return nil
}

// redactURL keeps a witness URL's scheme and host: its path or query may
// carry a token.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "(a witness URL)"
	}
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host + "/…"
}
