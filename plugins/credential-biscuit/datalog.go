package main

import (
	"time"

	"github.com/biscuit-auth/biscuit-go/v2"
)

// Datalog v3.0 only (biscuit-go v2.2.0): facts and `check if` with
// integers, strings, dates and sets. Terms are built as values, never by
// formatting source text, so no scope or limit can inject Datalog.

func pred(name string, terms ...biscuit.Term) biscuit.Predicate {
	return biscuit.Predicate{Name: name, IDs: terms}
}

func fact(name string, terms ...biscuit.Term) biscuit.Fact {
	return biscuit.Fact{Predicate: pred(name, terms...)}
}

func query(body []biscuit.Predicate, expr ...biscuit.Op) biscuit.Rule {
	r := biscuit.Rule{Head: pred("query"), Body: body}
	if len(expr) > 0 {
		r.Expressions = []biscuit.Expression{expr}
	}
	return r
}

func val(t biscuit.Term) biscuit.Op { return biscuit.Value{Term: t} }

// scopeCheck: check if tool(a), project(p) or … (the link's own pairs).
func scopeCheck(pairs []scopePair) biscuit.Check {
	var c biscuit.Check
	for _, p := range pairs {
		c.Queries = append(c.Queries, query([]biscuit.Predicate{
			pred("tool", biscuit.String(p.action)), pred("project", biscuit.String(p.project)),
		}))
	}
	return c
}

// limitCheck: check if arg(k, $v), $v <= max.
func limitCheck(k string, max int64) biscuit.Check {
	return biscuit.Check{Queries: []biscuit.Rule{query(
		[]biscuit.Predicate{pred("arg", biscuit.String(k), biscuit.Variable("v"))},
		val(biscuit.Variable("v")), val(biscuit.Integer(max)), biscuit.BinaryLessOrEqual,
	)}}
}

// expiryCheck: check if time($t), $t <= expires.
func expiryCheck(expires time.Time) biscuit.Check {
	return biscuit.Check{Queries: []biscuit.Rule{query(
		[]biscuit.Predicate{pred("time", biscuit.Variable("t"))},
		val(biscuit.Variable("t")), val(biscuit.Date(expires)), biscuit.BinaryLessOrEqual,
	)}}
}

// argNamesCheck: check if arg_names($n), {allowed}.contains($n). Datalog
// v3.0 has no `reject if`, so the verifier states every argument name it
// was given in one arg_names set, and the set must lie within allowed.
func argNamesCheck(allowed []string) biscuit.Check {
	return biscuit.Check{Queries: []biscuit.Rule{query(
		[]biscuit.Predicate{pred("arg_names", biscuit.Variable("n"))},
		val(strSet(allowed)), val(biscuit.Variable("n")), biscuit.BinaryContains,
	)}}
}

func strSet(ss []string) biscuit.Set {
	s := make(biscuit.Set, len(ss))
	for i, v := range ss {
		s[i] = biscuit.String(v)
	}
	return s
}

// blockContent is the facts and checks of one block, in the order of
// docs/specs/behavior.md §12.3: mandate, holder (last), rights (authority), the scope
// check, limit checks by key, expiry, then the argument-name check (last).
func blockContent(b blockPlan, authority bool) ([]biscuit.Fact, []biscuit.Check) {
	facts := []biscuit.Fact{fact("mandate", biscuit.String(b.linkID))}
	if b.holder != "" {
		facts = append(facts, fact("holder", biscuit.String(b.holder)))
	}
	if authority {
		for _, p := range b.pairs {
			facts = append(facts, fact("right", biscuit.String(p.project), biscuit.String(p.action)))
		}
	}
	checks := []biscuit.Check{scopeCheck(b.pairs)}
	for _, k := range sortedKeys(b.limits) {
		checks = append(checks, limitCheck(k, b.limits[k]))
	}
	if !b.expires.IsZero() {
		checks = append(checks, expiryCheck(b.expires))
	}
	if b.allowed != nil {
		checks = append(checks, argNamesCheck(b.allowed))
	}
	return facts, checks
}
