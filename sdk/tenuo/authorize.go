package tenuo

import "fmt"

// Authorize checks that this warrant, the leaf of a stack VerifyStack
// accepted, allows a call of tool with args (as the holder signed them:
// integers as int64, other numbers as float64). Every constrained argument
// must be present (but a Wildcard may be absent) and satisfy its
// constraint, and no other argument is allowed unless AllowUnknown. It
// understands the constraints the board exports (Exact, OneOf, Range,
// Wildcard); any other constraint refuses the call, because ignoring a
// constraint would widen what the warrant grants.
func (leaf *Payload) Authorize(tool string, args map[string]any) error {
	if leaf.Type != Execution {
		return fmt.Errorf("the leaf is not an execution warrant")
	}
	cs, ok := leaf.Tools[tool]
	if !ok {
		return fmt.Errorf("tool %q is not granted", tool)
	}
	for name, c := range cs.Constraints {
		v, present := args[name]
		if !present {
			if c.Type == TypeWildcard {
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
func satisfies(c Constraint, v any) error {
	switch c.Type {
	case TypeWildcard:
		return nil
	case TypeExact:
		if !equal(c.Value, v) {
			return fmt.Errorf("is not %v", c.Value)
		}
	case TypeOneOf:
		set, _ := c.Value.([]any)
		for _, s := range set {
			if equal(s, v) {
				return nil
			}
		}
		return fmt.Errorf("is not one of %v", set)
	case TypeRange:
		r, ok := c.Value.(Range)
		f, isNum := number(v)
		if !ok || !isNum {
			return fmt.Errorf("is not a number in range")
		}
		if !r.contains(f) {
			return fmt.Errorf("%v is outside %s", f, r)
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

// String writes the range in interval notation, "[0, 40]" or "(-inf, 2]".
func (r Range) String() string {
	lo, hi := "(-inf", "+inf)"
	if r.Min != nil {
		lo = fmt.Sprintf("(%v", *r.Min)
		if r.MinInclusive {
			lo = fmt.Sprintf("[%v", *r.Min)
		}
	}
	if r.Max != nil {
		hi = fmt.Sprintf("%v)", *r.Max)
		if r.MaxInclusive {
			hi = fmt.Sprintf("%v]", *r.Max)
		}
	}
	return lo + ", " + hi
}
