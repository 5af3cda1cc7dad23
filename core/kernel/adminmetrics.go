package kernel

import (
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// adminMetrics counts and times every Admin API call by its operation id
// and the status it answered (Deps.Metrics). It runs first, so a call the
// gate refuses is counted too. Operation ids are the OpenAPI document's
// (docs/openapi.json), a bounded set; the path, which carries ids, is
// never a label (docs/invariants.md OBS-001).
func (k *Kernel) adminMetrics(ctx huma.Context, next func(huma.Context)) {
	if k.deps.Metrics == nil {
		next(ctx)
		return
	}
	start := time.Now()
	next(ctx)
	k.deps.Metrics.AdminCall(ctx.Operation().OperationID, ctx.Status(), time.Since(start))
}
