package ledger

import (
	"context"
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
// it. Each witness's cursor is a row of log_witnesses, locked while one
// board sends (FOR UPDATE SKIP LOCKED), so boards sharing a database never
// send a checkpoint twice at once; a failed send is tried again on the
// next round with the same checkpoint, so every witness gets every one, in
// order, at least once.
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

func (w *Witnesses) deliverTo(ctx context.Context, d *db.DB, url string) (int, error) {
	sent := 0
	var sendErr error // kept apart: the cursor commits what was acknowledged
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		var through int64
		err := tx.QueryRow(ctx, `SELECT delivered_through FROM log_witnesses WHERE url = $1 FOR UPDATE SKIP LOCKED`, url).
			Scan(&through)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // another board is sending it
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, chain_key, note FROM log_checkpoints WHERE id > $1 ORDER BY id LIMIT $2`,
			through, witnessBatch)
		if err != nil {
			return err
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
			return err
		}
		for _, c := range todo {
			if sendErr = w.send(ctx, url, c.chain, c.note); sendErr != nil {
				break
			}
			through = c.id
			sent++
		}
		lastError := ""
		if sendErr != nil {
			lastError = sendErr.Error()
		}
		_, err = tx.Exec(ctx, `UPDATE log_witnesses SET delivered_through = $2, last_error = nullif($3, ''), attempted_at = now()
			WHERE url = $1`, url, through, lastError)
		return err
	})
	if err = errors.Join(err, sendErr); err != nil {
		return sent, fmt.Errorf("ledger: witness %s: %w", redactURL(url), err)
	}
	return sent, nil
}

func (w *Witnesses) send(ctx context.Context, url, chain, note string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
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
