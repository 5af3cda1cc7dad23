package tenuo

import (
	"bytes"
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// Constraint type ids of wire-format-v1 §4 that this package reads and
// writes with their meaning; any other id is kept as opaque bytes, which
// Tenuo itself treats as "always fails authorization".
const (
	TypeExact      = 1
	TypePattern    = 2
	TypeRange      = 3
	TypeOneOf      = 4
	TypeRegex      = 5
	TypeNotOneOf   = 7
	TypeCidr       = 8
	TypeURLPattern = 9
	TypeWildcard   = 16
)

// Constraint is one argument constraint, a [type_id, value] pair on the
// wire. Value depends on Type: the ConstraintValue for Exact, a string for
// Pattern, Regex, Cidr and UrlPattern, a Range, a []any for OneOf and
// NotOneOf, nil for Wildcard, and cbor.RawMessage for every other type
// (re-emitted verbatim, never interpreted).
type Constraint struct {
	Type  uint64
	Value any
}

// Range is Tenuo's numeric range; a nil bound is unbounded.
type Range struct {
	Min, Max                   *float64
	MinInclusive, MaxInclusive bool
}

// ConstraintSet is the per-tool argument constraints. Serde wraps the map
// in {"constraints": …} and writes allow_unknown only when true.
type ConstraintSet struct {
	Constraints  map[string]Constraint
	AllowUnknown bool
}

// Exact, Pattern and friends build constraints; they exist so callers
// never get a Value shape wrong.
func Exact(v any) Constraint         { return Constraint{TypeExact, v} }
func Pattern(glob string) Constraint { return Constraint{TypePattern, glob} }
func Wildcard() Constraint           { return Constraint{TypeWildcard, nil} }
func OneOf(vs ...any) Constraint     { return Constraint{TypeOneOf, vs} }

// AtMost is a Range with only an inclusive upper bound: a per-call ceiling.
func AtMost(max float64) Constraint {
	return Constraint{TypeRange, Range{Max: &max, MaxInclusive: true}}
}

func (c Constraint) enc() (any, error) {
	var v any
	var err error
	switch c.Type {
	case TypeExact:
		v, err = value(c.Value)
		v = omap{{"value", v}}
	case TypePattern, TypeRegex:
		s, ok := c.Value.(string)
		if !ok {
			return nil, fmt.Errorf("tenuo: constraint %d needs a string", c.Type)
		}
		v = omap{{"pattern", s}}
	case TypeCidr, TypeURLPattern:
		s, ok := c.Value.(string)
		if !ok {
			return nil, fmt.Errorf("tenuo: constraint %d needs a string", c.Type)
		}
		v = s
	case TypeRange:
		r, ok := c.Value.(Range)
		if !ok {
			return nil, fmt.Errorf("tenuo: range constraint needs a Range")
		}
		v = omap{{"min", optFloat(r.Min)}, {"max", optFloat(r.Max)},
			{"min_inclusive", r.MinInclusive}, {"max_inclusive", r.MaxInclusive}}
	case TypeOneOf, TypeNotOneOf:
		vs, ok := c.Value.([]any)
		if !ok {
			return nil, fmt.Errorf("tenuo: constraint %d needs a list", c.Type)
		}
		v, err = value(vs)
		name := "values"
		if c.Type == TypeNotOneOf {
			name = "excluded"
		}
		v = omap{{name, v}}
	case TypeWildcard:
		v = nil
	default:
		raw, ok := c.Value.(cbor.RawMessage)
		if !ok {
			return nil, fmt.Errorf("tenuo: constraint type %d is not supported", c.Type)
		}
		v = raw
	}
	if err != nil {
		return nil, err
	}
	return []any{c.Type, v}, nil
}

func optFloat(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func (s ConstraintSet) enc() (any, error) {
	cs := make(omap, 0, len(s.Constraints))
	for _, k := range sortedKeys(s.Constraints) {
		v, err := s.Constraints[k].enc()
		if err != nil {
			return nil, err
		}
		cs = append(cs, entry{k, v})
	}
	out := omap{{"constraints", cs}}
	if s.AllowUnknown {
		out = append(out, entry{"allow_unknown", true})
	}
	return out, nil
}

func decodeConstraintSet(raw cbor.RawMessage) (ConstraintSet, error) {
	var m map[string]cbor.RawMessage
	if err := decMode().Unmarshal(raw, &m); err != nil {
		return ConstraintSet{}, fmt.Errorf("constraint set: %w", err)
	}
	var s ConstraintSet
	for k, v := range m {
		switch k {
		case "constraints":
			var cs map[string]cbor.RawMessage
			if err := decMode().Unmarshal(v, &cs); err != nil {
				return s, fmt.Errorf("constraints: %w", err)
			}
			s.Constraints = make(map[string]Constraint, len(cs))
			for arg, cr := range cs {
				c, err := decodeConstraint(cr)
				if err != nil {
					return s, fmt.Errorf("constraint %q: %w", arg, err)
				}
				s.Constraints[arg] = c
			}
		case "allow_unknown":
			if err := decMode().Unmarshal(v, &s.AllowUnknown); err != nil {
				return s, err
			}
		default:
			return s, fmt.Errorf("constraint set: unknown field %q", k)
		}
	}
	if s.Constraints == nil {
		return s, fmt.Errorf("constraint set: missing constraints")
	}
	return s, nil
}

func decodeConstraint(raw cbor.RawMessage) (Constraint, error) {
	var pair []cbor.RawMessage
	if err := decMode().Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return Constraint{}, fmt.Errorf("not a [type, value] pair")
	}
	var c Constraint
	if err := decMode().Unmarshal(pair[0], &c.Type); err != nil {
		return c, err
	}
	dm := decMode()
	var err error
	switch c.Type {
	case TypeExact:
		var w struct {
			Value any `cbor:"value"`
		}
		err = strictStruct(pair[1], &w, "value")
		c.Value = w.Value
	case TypePattern, TypeRegex:
		var w struct {
			Pattern string `cbor:"pattern"`
		}
		err = strictStruct(pair[1], &w, "pattern")
		c.Value = w.Pattern
	case TypeCidr, TypeURLPattern:
		var s string
		err = dm.Unmarshal(pair[1], &s)
		c.Value = s
	case TypeRange:
		var w struct {
			Min          *float64 `cbor:"min"`
			Max          *float64 `cbor:"max"`
			MinInclusive bool     `cbor:"min_inclusive"`
			MaxInclusive bool     `cbor:"max_inclusive"`
		}
		err = strictStruct(pair[1], &w, "min", "max", "min_inclusive", "max_inclusive")
		c.Value = Range{w.Min, w.Max, w.MinInclusive, w.MaxInclusive}
	case TypeOneOf, TypeNotOneOf:
		var w map[string][]any
		err = dm.Unmarshal(pair[1], &w)
		name := map[uint64]string{TypeOneOf: "values", TypeNotOneOf: "excluded"}[c.Type]
		if err == nil && (len(w) != 1 || w[name] == nil) {
			err = fmt.Errorf("want {%q: [...]}", name)
		}
		c.Value = w[name]
	case TypeWildcard:
		if !bytes.Equal(pair[1], []byte{0xf6}) {
			err = fmt.Errorf("wildcard value is not null")
		}
	default:
		c.Value = pair[1]
	}
	return c, err
}

// strictStruct decodes a text-keyed struct map and refuses fields other
// than the named ones, so nothing a signer meant is silently dropped.
func strictStruct(raw cbor.RawMessage, dst any, fields ...string) error {
	var m map[string]cbor.RawMessage
	if err := decMode().Unmarshal(raw, &m); err != nil {
		return err
	}
	allowed := make(map[string]bool, len(fields))
	for _, f := range fields {
		allowed[f] = true
	}
	for k := range m {
		if !allowed[k] {
			return fmt.Errorf("unknown field %q", k)
		}
	}
	return decMode().Unmarshal(raw, dst)
}
