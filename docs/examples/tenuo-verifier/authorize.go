package main

import (
	"fmt"

	"github.com/pactboard/pact/sdk/tenuo"
)

// authorize checks that the leaf warrant allows tool with args. It
// understands the constraints the board exports (Exact, OneOf, Range,
// Wildcard); any other constraint refuses the call, because ignoring a
// constraint would widen what the warrant grants.
func authorize(leaf *tenuo.Payload, tool string, args map[string]any) error {
	if leaf.Type != tenuo.Execution {
		return fmt.Errorf("the leaf is not an execution warrant")
	}
	cs, ok := leaf.Tools[tool]
	if !ok {
		return fmt.Errorf("tool %q is not granted", tool)
	}
	for name, c := range cs.Constraints {
		v, present := args[name]
		if !present {
			if c.Type == tenuo.TypeWildcard {
				continue
			}
			return fmt.Errorf("argument %q is constrained but missing", name)
		}
		if err := satisfies(c, v); err != nil {
			return fmt.Errorf("argument %q: %w", name, err)
		}
	}
	if !cs.AllowUnknown {
		for name := range args {
			if _, ok := cs.Constraints[name]; !ok {
				return fmt.Errorf("argument %q is not allowed", name)
			}
		}
	}
	return nil
}

// satisfies reports whether the value v meets one constraint.
func satisfies(c tenuo.Constraint, v any) error {
	switch c.Type {
	case tenuo.TypeWildcard:
		return nil
	case tenuo.TypeExact:
		if !equal(c.Value, v) {
			return fmt.Errorf("is not %v", c.Value)
		}
	case tenuo.TypeOneOf:
		set, _ := c.Value.([]any)
		for _, s := range set {
			if equal(s, v) {
				return nil
			}
		}
		return fmt.Errorf("is not one of %v", set)
	case tenuo.TypeRange:
		r, ok := c.Value.(tenuo.Range)
		f, isNum := number(v)
		if !ok || !isNum {
			return fmt.Errorf("is not a number in range")
		}
		if r.Min != nil && (f < *r.Min || (f == *r.Min && !r.MinInclusive)) {
			return fmt.Errorf("%v is below %v", f, *r.Min)
		}
		if r.Max != nil && (f > *r.Max || (f == *r.Max && !r.MaxInclusive)) {
			return fmt.Errorf("%v is above the ceiling %v", f, *r.Max)
		}
	default:
		return fmt.Errorf("constraint type %d is not supported by this verifier", c.Type)
	}
	return nil
}

// equal compares a constraint value with an argument: text with text,
// booleans with booleans, numbers by value.
func equal(want, got any) bool {
	if a, ok := number(want); ok {
		b, ok := number(got)
		return ok && a == b
	}
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		return ok && g == w
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	}
	return false
}

// number reads the numeric forms a decoded constraint or argument takes.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
