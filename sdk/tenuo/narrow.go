package tenuo

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
)

// narrowsSet reports whether child keeps within parent: it keeps every
// argument the parent constrains, adds none when the parent constrains
// any, does not turn on allow_unknown, and narrows each constraint.
func narrowsSet(parent, child ConstraintSet) error {
	if child.AllowUnknown && !parent.AllowUnknown {
		return errors.New("allow_unknown turned on")
	}
	for arg := range parent.Constraints {
		if _, ok := child.Constraints[arg]; !ok {
			return fmt.Errorf("argument %q dropped", arg)
		}
	}
	for arg, c := range child.Constraints {
		pc, ok := parent.Constraints[arg]
		if !ok {
			if len(parent.Constraints) > 0 {
				return fmt.Errorf("argument %q added", arg)
			}
			continue
		}
		if !narrows(pc, c) {
			return fmt.Errorf("argument %q widened", arg)
		}
	}
	return nil
}

// narrows is the subset of Tenuo's attenuation matrix (wire-format-v1 §6)
// for the constraint types this package reads. Anything it cannot prove
// narrower is refused: failing closed is the point of a verifier.
func narrows(parent, child Constraint) bool {
	if parent.Type == TypeWildcard {
		return true
	}
	if same(parent, child) {
		return true
	}
	switch parent.Type {
	case TypePattern:
		glob := parent.Value.(string)
		switch child.Type {
		case TypeExact:
			s, ok := child.Value.(string)
			m, err := path.Match(glob, s)
			return ok && err == nil && m
		case TypePattern:
			pp, pok := strings.CutSuffix(glob, "*")
			cp, cok := strings.CutSuffix(child.Value.(string), "*")
			return pok && cok && !strings.ContainsAny(pp+cp, "*?[") && strings.HasPrefix(cp, pp)
		}
	case TypeRange:
		r := parent.Value.(Range)
		switch child.Type {
		case TypeExact:
			f, ok := number(child.Value)
			return ok && r.contains(f)
		case TypeRange:
			return r.coversRange(child.Value.(Range))
		}
	case TypeOneOf:
		set := parent.Value.([]any)
		switch child.Type {
		case TypeExact:
			return member(set, child.Value)
		case TypeOneOf:
			for _, v := range child.Value.([]any) {
				if !member(set, v) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// same compares constraints by their encoding, which is exact for every
// type including opaque ones.
func same(a, b Constraint) bool {
	ae, err1 := a.enc()
	be, err2 := b.enc()
	if err1 != nil || err2 != nil {
		return false
	}
	ab, err1 := encMode().Marshal(ae)
	bb, err2 := encMode().Marshal(be)
	return err1 == nil && err2 == nil && bytes.Equal(ab, bb)
}

func member(set []any, v any) bool {
	for _, s := range set {
		if same(Exact(s), Exact(v)) {
			return true
		}
	}
	return false
}

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

func (r Range) contains(f float64) bool {
	if r.Min != nil && (f < *r.Min || (f == *r.Min && !r.MinInclusive)) {
		return false
	}
	return r.Max == nil || f < *r.Max || (f == *r.Max && r.MaxInclusive)
}

func (r Range) coversRange(c Range) bool {
	if r.Min != nil {
		if c.Min == nil || *c.Min < *r.Min || (*c.Min == *r.Min && c.MinInclusive && !r.MinInclusive) {
			return false
		}
	}
	if r.Max != nil {
		if c.Max == nil || *c.Max > *r.Max || (*c.Max == *r.Max && c.MaxInclusive && !r.MaxInclusive) {
			return false
		}
	}
	return true
}
