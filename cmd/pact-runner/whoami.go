package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// refused handles a refusal of a call made under mandate m: a fatal code
// is an error (stopped); a mandate code reads pact_whoami again and
// switches to a live root mandate, or is an error when there is none. Any
// other error is the caller's to handle.
func (r *runner) refused(ctx context.Context, err error, m string) error {
	code := codeOf(err)
	switch {
	case isFatal(code):
		return stopped{err}
	case isMandate(code):
		r.log.Warn("mandate refused; reading pact_whoami again", "mandate", m, "error", err)
		return r.whoami(ctx, m)
	}
	return nil
}

// whoami reads who the runner is: it must be a runner, its production
// projects are skipped, and it takes the first live root mandate other
// than failed (the mandate just refused; "" at start).
func (r *runner) whoami(ctx context.Context, failed string) error {
	var w whoamiOut
	if err := r.board.call(ctx, "pact_whoami", map[string]any{}, &w); err != nil {
		if codeOf(err) != "" || unauthorized(err) {
			return stopped{err}
		}
		return fmt.Errorf("pact_whoami: %w", err)
	}
	if w.Agent.Client != "runner" {
		return stopped{fmt.Errorf("agent %s is a %q client, not a runner", w.Agent.ID, w.Agent.Client)}
	}
	r.skip = map[string]bool{}
	r.project = ""
	open := 0
	for _, p := range w.Projects {
		r.skip[p.ID] = p.Production
		if !p.Production {
			if open == 0 {
				r.project = p.ID
			}
			open++
		}
	}
	if open == 0 {
		return stopped{errors.New("the agent has no project that is not production; a Runner never works on production")}
	}
	keep := ""
	for _, m := range w.Mandates {
		if m.ParentID != nil || m.ID == failed {
			continue
		}
		if m.ID == r.root {
			keep = m.ID
			break
		}
		if keep == "" {
			keep = m.ID
		}
	}
	if keep == "" {
		return stopped{fmt.Errorf("no live root mandate left (the last refused: %s); a person issues a new one", cmpOr(failed, "none"))}
	}
	if keep != r.root {
		if r.root != "" {
			r.log.Info("switched to a new root mandate", "from", r.root, "to", keep)
		}
		r.root = keep
	}
	return nil
}

// transient reports whether err is the board failing to answer rather
// than a refusal of the call: no code, or internal, unavailable,
// rate_limited.
func transient(err error) bool {
	switch codeOf(err) {
	case "", "internal", "unavailable", "rate_limited":
		return true
	}
	return false
}

// unauthorized reports whether the board refused the token (HTTP 401): a
// revoked or wrong token, which trying again does not mend.
func unauthorized(err error) bool {
	return codeOf(err) == "" && strings.Contains(err.Error(), http.StatusText(http.StatusUnauthorized))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
