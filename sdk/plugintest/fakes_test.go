package plugintest_test

import (
	"context"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/notifier"
)

// Func-field fakes: each test sets the methods it calls.

type fakeNotifier struct {
	capabilities func(context.Context) (*notifier.Capabilities, error)
	prepare      func(context.Context, notifier.Destination) (*notifier.Destination, error)
	deliver      func(context.Context, notifier.Destination, notifier.Notification) (*notifier.Receipt, error)
}

func (f *fakeNotifier) Capabilities(ctx context.Context) (*notifier.Capabilities, error) {
	return f.capabilities(ctx)
}

func (f *fakeNotifier) PrepareDestination(ctx context.Context, d notifier.Destination) (*notifier.Destination, error) {
	return f.prepare(ctx, d)
}

func (f *fakeNotifier) Deliver(ctx context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	return f.deliver(ctx, d, n)
}

type fakeCredential struct {
	format         func(context.Context) (string, error)
	export         func(context.Context, credential.ExportRequest) (*credential.Exported, error)
	revocationList func(context.Context, credential.RevocationRequest) (*credential.RevocationList, error)
	importFn       func(context.Context, credential.ImportRequest) (*credential.ImportedLink, error)
}

func (f *fakeCredential) Format(ctx context.Context) (string, error) { return f.format(ctx) }

func (f *fakeCredential) Export(ctx context.Context, r credential.ExportRequest) (*credential.Exported, error) {
	return f.export(ctx, r)
}

func (f *fakeCredential) RevocationList(ctx context.Context, r credential.RevocationRequest) (*credential.RevocationList, error) {
	return f.revocationList(ctx, r)
}

func (f *fakeCredential) Import(ctx context.Context, r credential.ImportRequest) (*credential.ImportedLink, error) {
	return f.importFn(ctx, r)
}

type fakeIssuer struct {
	verify   func(context.Context, authissuer.VerifyRequest) (*authissuer.Identity, error)
	metadata func(context.Context) (*authissuer.Metadata, error)
}

func (f *fakeIssuer) Verify(ctx context.Context, r authissuer.VerifyRequest) (*authissuer.Identity, error) {
	return f.verify(ctx, r)
}

func (f *fakeIssuer) Metadata(ctx context.Context) (*authissuer.Metadata, error) {
	return f.metadata(ctx)
}
