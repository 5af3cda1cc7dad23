package main

import (
	"context"
	"crypto/ed25519"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/tenuo"
)

// A board export imported with the board key as trusted root maps back to
// the leaf's scope (sorted) and limits.
func TestImportRoundTripOfExport(t *testing.T) {
	e, _ := export(t, chain())
	r := importReq(e.Credential)
	r.TrustedRoots = [][]byte{pub(boardSeed)}
	got, err := served(t).Import(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	want := &credential.ImportedLink{Scope: []string{"code.write@project:alpha"},
		Limits: map[string]float64{"cost_usd": 12.5, "files": 3}, ExpiresAt: testNow.Add(24 * time.Hour),
		ExternalID: e.ExternalID, IssuerPrincipal: []byte(pub(boardSeed)), MaxDelegations: 0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// An outside org's warrant maps to scopes, limits and delegations.
func TestImportMapsOrgWarrant(t *testing.T) {
	tools := map[string]tenuo.ConstraintSet{
		"deploy": {Constraints: map[string]tenuo.Constraint{"project": tenuo.OneOf("web", "api"),
			"task_id": tenuo.Wildcard(), "replicas": tenuo.AtMost(4)}},
		"read": {Constraints: map[string]tenuo.Constraint{"project": tenuo.Exact("web"), "replicas": tenuo.AtMost(2)}},
	}
	got, err := served(t).Import(context.Background(), importReq(orgStack(t, tools, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Scope, []string{"deploy@project:api", "deploy@project:web", "read@project:web"}) ||
		got.Limits["replicas"] != 2 || got.MaxDelegations != 2 || !got.ExpiresAt.Equal(testNow.Add(time.Hour)) {
		t.Fatalf("%+v", got)
	}
}

// Every refusal of docs/specs/behavior.md §12.5 that the plugin can decide, each with
// its code and nothing imported.
func TestImportRefusals(t *testing.T) {
	ok := map[string]tenuo.ConstraintSet{"deploy": {Constraints: map[string]tenuo.Constraint{"project": tenuo.Exact("web")}}}
	with := func(arg string, c tenuo.Constraint) map[string]tenuo.ConstraintSet {
		return map[string]tenuo.ConstraintSet{"deploy": {Constraints: map[string]tenuo.Constraint{"project": tenuo.Exact("web"), arg: c}}}
	}
	lo := 1.0
	valid := orgStack(t, ok, nil)
	raw, _ := tenuo.FromText(valid)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-5] ^= 1 // inside the signature
	cases := []struct {
		name string
		r    credential.ImportRequest
		code errs.Code
		msg  string
	}{
		{"garbage", importReq("%%%"), errs.InvalidRequest, "not a Tenuo warrant stack"},
		{"not cbor", importReq(tenuo.Text([]byte{0xff})), errs.InvalidRequest, "not a Tenuo warrant stack"},
		{"untrusted root", func() credential.ImportRequest {
			r := importReq(valid)
			r.TrustedRoots = [][]byte{pub(boardSeed)}
			return r
		}(), errs.ChainBroken, "not a trusted root"},
		{"bad signature", importReq(tenuo.Text(flipped)), errs.ChainBroken, "does not verify"},
		{"expired", func() credential.ImportRequest {
			r := importReq(valid)
			r.Now = testNow.Add(2 * time.Hour)
			return r
		}(), errs.ChainBroken, "has expired"},
		{"holder not live", func() credential.ImportRequest {
			r := importReq(valid)
			r.HolderKeys = [][]byte{pub(0x09)}
			return r
		}(), errs.InvalidRequest, "not a live key"},
		{"no tools", importReq(orgStack(t, map[string]tenuo.ConstraintSet{}, nil)), errs.InvalidRequest, "no tools"},
		{"wildcard tool", importReq(orgStack(t, map[string]tenuo.ConstraintSet{"*": ok["deploy"]}, nil)), errs.InvalidRequest, "wildcard"},
		{"no project", importReq(orgStack(t, map[string]tenuo.ConstraintSet{"deploy": {Constraints: map[string]tenuo.Constraint{}}}, nil)), errs.InvalidRequest, "no project"},
		{"project pattern", importReq(orgStack(t, map[string]tenuo.ConstraintSet{"deploy": {Constraints: map[string]tenuo.Constraint{"project": tenuo.Pattern("w*")}}}, nil)), errs.InvalidRequest, "Exact or OneOf"},
		{"pattern arg", importReq(orgStack(t, with("path", tenuo.Pattern("/x/*")), nil)), errs.InvalidRequest, "no ledger equivalent"},
		{"range with min", importReq(orgStack(t, with("n", tenuo.Constraint{Type: tenuo.TypeRange, Value: tenuo.Range{Min: &lo, Max: &lo, MaxInclusive: true}}), nil)), errs.InvalidRequest, "no ledger equivalent"},
		{"task_id exact", importReq(orgStack(t, with("task_id", tenuo.Exact("t1")), nil)), errs.InvalidRequest, "no ledger equivalent"},
		{"approvals", importReq(orgStack(t, ok, func(p *tenuo.Payload) {
			p.RequiredApprovers = []ed25519.PublicKey{pub(0x11)}
			one := uint64(1)
			p.MinApprovals = &one
		})), errs.InvalidRequest, "approvals"},
		{"issuer leaf", importReq(orgStack(t, map[string]tenuo.ConstraintSet{}, func(p *tenuo.Payload) {
			p.Type = tenuo.Issuer
			p.IssuableTools = []string{"deploy"}
		})), errs.InvalidRequest, "not an execution warrant"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := served(t).Import(context.Background(), c.r)
			e, isErr := errs.As(err)
			if got != nil || !isErr || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
				t.Fatalf("got %+v, %v; want %s containing %q", got, err, c.code, c.msg)
			}
		})
	}
}

// A delegated stack that widens its parent is chain_broken.
func TestImportWideningChildIsChainBroken(t *testing.T) {
	parent := &tenuo.Payload{ID: [16]byte{1}, Tools: map[string]tenuo.ConstraintSet{"deploy": {Constraints: map[string]tenuo.Constraint{
		"project": tenuo.Exact("web"), "n": tenuo.AtMost(2)}}}, Holder: pub(0x06), Issuer: pub(orgSeed),
		IssuedAt: uint64(testNow.Unix()), ExpiresAt: uint64(testNow.Add(time.Hour).Unix()), MaxDepth: 5}
	ps, err := tenuo.Sign(parent, seed(orgSeed))
	if err != nil {
		t.Fatal(err)
	}
	child := *parent
	child.ID = [16]byte{2}
	child.Tools = map[string]tenuo.ConstraintSet{"deploy": {Constraints: map[string]tenuo.Constraint{
		"project": tenuo.Exact("web"), "n": tenuo.AtMost(3)}}}
	child.Holder, child.Issuer, child.Depth, child.ParentHash = pub(agentSeed), pub(0x06), 1, ps.Hash()
	cs, err := tenuo.Sign(&child, seed(0x06))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tenuo.EncodeStack([]*tenuo.Signed{ps, cs})
	_, err = served(t).Import(context.Background(), importReq(tenuo.Text(b)))
	if errs.CodeOf(err) != errs.ChainBroken || !strings.Contains(err.Error(), "widened") {
		t.Fatalf("got %v", err)
	}
	child.Tools["deploy"].Constraints["n"] = tenuo.AtMost(1)
	cs, _ = tenuo.Sign(&child, seed(0x06))
	b, _ = tenuo.EncodeStack([]*tenuo.Signed{ps, cs})
	got, err := served(t).Import(context.Background(), importReq(tenuo.Text(b)))
	if err != nil || got.Limits["n"] != 1 {
		t.Fatalf("narrowing child: %+v %v", got, err)
	}
}
