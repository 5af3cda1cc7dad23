package credentials

import (
	"net/http"
	"strconv"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// serveList answers GET /.well-known/pact-revocations/<format>, the public
// route verifiers refetch: the format's signed list (revocationList) with
// its version, never cached.
func (m *Module) serveList(w http.ResponseWriter, r *http.Request) {
	format := r.PathValue("format")
	if !formats[format] {
		kernel.WriteError(w, http.StatusNotFound, errs.E(errs.NotFound, "no revocation list for format '%s'", format))
		return
	}
	list, version, err := m.revocationList(r.Context(), format)
	if err != nil {
		p := kernel.Public(err) // a plugin or the database down is 503 unavailable
		if p.Code != errs.Unavailable {
			m.logger.Error("revocation list", "format", format, "error", err)
		}
		kernel.WriteError(w, kernel.AdminStatus(p.Code), p)
		return
	}
	h := w.Header()
	h.Set("Content-Type", list.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(list.Body)))
	h.Set("Cache-Control", "no-store")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "x-pact-revocations-version")
	h.Set("X-Pact-Revocations-Version", strconv.FormatInt(version, 10))
	_, _ = w.Write(list.Body)
}
