package kernel_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// The database failing a call reaches every boundary as unavailable with
// the message that says to retry, however deep it was wrapped; other
// errors keep their translation (REL-021).
func TestDatabaseErrorsTranslateToUnavailable(t *testing.T) {
	shutdown := &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}
	for name, err := range map[string]error{
		"Wrapped":  fmt.Errorf("load task: %w", shutdown),
		"Internal": errs.Wrap(fmt.Errorf("load task: %w", shutdown), "load"),
	} {
		t.Run(name, func(t *testing.T) {
			p := kernel.Public(err)
			require.Equal(t, errs.Unavailable, p.Code)
			require.Equal(t, db.DownMessage, p.Message)
			ae := kernel.ToAdminError(err).(*kernel.AdminError)
			require.Equal(t, http.StatusServiceUnavailable, ae.GetStatus())
			require.Equal(t, "unavailable", ae.Code)
			require.Equal(t, db.DownMessage, ae.Message)
			require.Equal(t, kernel.RetryAfterSeconds, ae.GetHeaders().Get("Retry-After"), "a 503 says when to come back")
			he := kernel.NewAdminError(http.StatusInternalServerError, "handler failed", err)
			require.Equal(t, http.StatusServiceUnavailable, he.GetStatus())
		})
	}
	require.Empty(t, kernel.ToAdminError(errs.E(errs.NotFound, "no task")).(*kernel.AdminError).GetHeaders())
	rec := httptest.NewRecorder()
	kernel.WriteError(rec, http.StatusServiceUnavailable, kernel.Public(shutdown))
	require.Equal(t, kernel.RetryAfterSeconds, rec.Header().Get("Retry-After"))
	rec = httptest.NewRecorder()
	kernel.WriteError(rec, http.StatusNotFound, errs.E(errs.NotFound, "no task"))
	require.Empty(t, rec.Header().Get("Retry-After"))
	busy := kernel.Public(fmt.Errorf("acquire: %w", db.ErrBusy))
	require.Equal(t, db.BusyMessage, busy.Message)
	require.Equal(t, errs.Internal, kernel.Public(fmt.Errorf("boom")).Code)
	require.Equal(t, errs.NotFound, kernel.Public(errs.E(errs.NotFound, "no task")).Code)
}
