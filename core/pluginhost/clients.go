package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// call runs one plugin method under the host's deadline: it gets the
// running plugin (starting it if needed), calls fn, and makes the errors
// say which plugin failed. Request and result values are never logged.
// Each call is timed by plugin, method and outcome (Options.Metrics).
func call[I, R any](ctx context.Context, p *proc, method string, fn func(context.Context, I) (R, error)) (_ R, err error) {
	var zero R
	start := time.Now()
	defer func() {
		outcome := "ok"
		if err != nil {
			outcome = string(errs.CodeOf(err))
		}
		p.h.opts.Metrics.PluginCall(p.spec.Name, method, outcome, time.Since(start))
	}()
	ctx, cancel := context.WithTimeout(ctx, p.h.opts.CallTimeout)
	defer cancel()
	v, err := p.get(ctx)
	if err != nil {
		p.logger.Warn("plugin call refused: plugin not running", "method", method, "error", err.Error())
		return zero, err
	}
	impl, ok := v.(I)
	if !ok { // cannot happen: the kind was checked by lookup
		return zero, errs.E(errs.Internal, "plugin %s does not implement %T", p.spec.Name, (*I)(nil))
	}
	r, err := fn(ctx, impl)
	if err == nil {
		p.healthy()
		return r, nil
	}
	e, ok := errs.As(err)
	if !ok {
		e = &errs.Error{Code: errs.Internal, Message: err.Error(), Err: err}
	}
	switch e.Code {
	case errs.Unavailable, errs.Internal:
	default:
		return zero, err // the plugin's refusal, as it said it
	}
	msg := e.Message
	if errors.Is(err, context.DeadlineExceeded) && e.Err != nil {
		dl, _ := ctx.Deadline()
		msg = fmt.Sprintf("%s did not answer within %s", method, dl.Sub(start).Round(time.Millisecond))
	}
	out := &errs.Error{Code: e.Code, Message: "plugin " + p.spec.Name + ": " + msg, MandateID: e.MandateID, Err: e.Err}
	p.logger.Warn("plugin call failed", "method", method, "code", string(e.Code), "error", out.Error())
	if e.Code == errs.Unavailable {
		p.noteCallFailure()
	}
	return zero, out
}

// notifierClient is a notifier plugin as the board sees it.
type notifierClient struct{ p *proc }

var _ notifier.Notifier = (*notifierClient)(nil)

func (c *notifierClient) Capabilities(ctx context.Context) (*notifier.Capabilities, error) {
	return call(ctx, c.p, "notifier.Capabilities", func(ctx context.Context, n notifier.Notifier) (*notifier.Capabilities, error) {
		return n.Capabilities(ctx)
	})
}

func (c *notifierClient) PrepareDestination(ctx context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return call(ctx, c.p, "notifier.PrepareDestination", func(ctx context.Context, n notifier.Notifier) (*notifier.Destination, error) {
		return n.PrepareDestination(ctx, d)
	})
}

func (c *notifierClient) Deliver(ctx context.Context, d notifier.Destination, nt notifier.Notification) (*notifier.Receipt, error) {
	return call(ctx, c.p, "notifier.Deliver", func(ctx context.Context, n notifier.Notifier) (*notifier.Receipt, error) {
		return n.Deliver(ctx, d, nt)
	})
}

// credentialClient is a credential plugin as the board sees it.
type credentialClient struct{ p *proc }

var _ credential.Credential = (*credentialClient)(nil)

func (c *credentialClient) Format(ctx context.Context) (string, error) {
	return call(ctx, c.p, "credential.Format", func(ctx context.Context, cr credential.Credential) (string, error) {
		return cr.Format(ctx)
	})
}

func (c *credentialClient) Export(ctx context.Context, r credential.ExportRequest) (*credential.Exported, error) {
	return call(ctx, c.p, "credential.Export", func(ctx context.Context, cr credential.Credential) (*credential.Exported, error) {
		return cr.Export(ctx, r)
	})
}

func (c *credentialClient) RevocationList(ctx context.Context, r credential.RevocationRequest) (*credential.RevocationList, error) {
	return call(ctx, c.p, "credential.RevocationList", func(ctx context.Context, cr credential.Credential) (*credential.RevocationList, error) {
		return cr.RevocationList(ctx, r)
	})
}

func (c *credentialClient) Import(ctx context.Context, r credential.ImportRequest) (*credential.ImportedLink, error) {
	return call(ctx, c.p, "credential.Import", func(ctx context.Context, cr credential.Credential) (*credential.ImportedLink, error) {
		return cr.Import(ctx, r)
	})
}

// issuerClient is an auth issuer plugin as the board sees it.
type issuerClient struct{ p *proc }

var _ authissuer.Issuer = (*issuerClient)(nil)

func (c *issuerClient) Verify(ctx context.Context, r authissuer.VerifyRequest) (*authissuer.Identity, error) {
	return call(ctx, c.p, "authissuer.Verify", func(ctx context.Context, is authissuer.Issuer) (*authissuer.Identity, error) {
		return is.Verify(ctx, r)
	})
}

func (c *issuerClient) Metadata(ctx context.Context) (*authissuer.Metadata, error) {
	return call(ctx, c.p, "authissuer.Metadata", func(ctx context.Context, is authissuer.Issuer) (*authissuer.Metadata, error) {
		return is.Metadata(ctx)
	})
}
