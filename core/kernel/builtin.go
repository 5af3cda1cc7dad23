package kernel

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/sdk/errs"
)

// builtins registers the routes every board serves. The catch-alls are the
// least specific patterns, so any module route wins over them.
func (k *Kernel) builtins() {
	k.handle("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}))
	k.handle("GET /readyz", http.HandlerFunc(k.readyz))
	k.handle(AdminPrefix+"/", notFound("no such admin route"))
	k.handle("/", notFound("not found"))
}

func notFound(msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		WriteError(w, http.StatusNotFound, errs.E(errs.NotFound, "%s", msg))
	})
}

// readyz answers 200 when the database answers and every embedded migration
// is recorded, else 503 with the reason (details go to the log). From the
// moment the board drains it answers 503 without asking the database, while
// /healthz stays 200: the process is alive, and leaving.
func (k *Kernel) readyz(w http.ResponseWriter, r *http.Request) {
	if k.notReadyWhileDraining(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if err := k.ready(ctx); err != nil {
		k.logger.Warn("not ready", "error", err)
		WriteError(w, http.StatusServiceUnavailable, errs.Public(err))
		return
	}
	WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

func (k *Kernel) ready(ctx context.Context) error {
	d := k.deps.DB
	if d == nil {
		return errs.E(errs.Unavailable, "no database")
	}
	if err := d.PingContext(ctx); err != nil {
		return &errs.Error{Code: errs.Unavailable, Message: "the database does not answer", Err: err}
	}
	missing, err := d.Pending(ctx)
	if err != nil {
		return &errs.Error{Code: errs.Unavailable, Message: "the schema cannot be read", Err: err}
	}
	if len(missing) > 0 {
		return errs.E(errs.Unavailable, "migrations not applied: %s", strings.Join(missing, ", "))
	}
	return nil
}

// gate applies the process role: an admin-role process serves only the
// health routes and the Admin API; PACT_ADMIN_API=off hides the Admin API.
func (k *Kernel) gate(next http.Handler) http.Handler {
	cfg := k.deps.Config
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		admin := isAdminPath(p)
		switch {
		case admin && !cfg.AdminAPI:
			WriteError(w, http.StatusNotFound, errs.E(errs.NotFound, "the Admin API runs as its own service"))
		case cfg.Role == boot.RoleAdmin && !admin && p != "/healthz" && p != "/readyz":
			WriteError(w, http.StatusNotFound, errs.E(errs.NotFound, "this service serves /admin/api only"))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// guard turns a handler's panic into a logged 500 instead of a dropped
// connection. http.ErrAbortHandler keeps its meaning.
func (k *Kernel) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			k.logger.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p))
			WriteError(w, http.StatusInternalServerError, errs.Public(nil))
		}()
		next.ServeHTTP(w, r)
	})
}
