package errs_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pactboard/pact/sdk/errs"
)

func TestCodeOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want errs.Code
	}{
		{"Nil", nil, ""},
		{"Refusal", errs.E(errs.NotFound, "no task %s", "t1"), errs.NotFound},
		{"Wrapped", fmt.Errorf("claim: %w", errs.Mandate(errs.MandateExpired, "m1", "expired")), errs.MandateExpired},
		{"Plain", errors.New("boom"), errs.Internal},
		{"Wrap", errs.Wrap(errors.New("boom"), "load"), errs.Internal},
		{"WrapKeepsRefusal", errs.Wrap(errs.E(errs.Forbidden, "no"), "load"), errs.Forbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := errs.CodeOf(tt.err); got != tt.want {
				t.Fatalf("CodeOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsRefusal(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("boom"), false},
		{errs.E(errs.Internal, "bug"), false},
		{errs.E(errs.Unavailable, "plugin down"), false},
		{errs.E(errs.ScopeExceeded, "no"), true},
		{fmt.Errorf("x: %w", errs.E(errs.IDTaken, "taken")), true},
	} {
		if got := errs.IsRefusal(tt.err); got != tt.want {
			t.Errorf("IsRefusal(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestPublicHidesCauses(t *testing.T) {
	p := errs.Public(errs.Wrap(errors.New("password=hunter2"), "connect"))
	if p.Code != errs.Internal || p.Err != nil || p.Message != "internal error; the board logged the details" {
		t.Fatalf("Public(internal) = %+v", p)
	}
	p = errs.Public(errors.New("password=hunter2"))
	if p.Code != errs.Internal || p.Message == "password=hunter2" {
		t.Fatalf("Public(plain) = %+v", p)
	}

	cause := errors.New("row locked")
	r := &errs.Error{Code: errs.LimitExceeded, Message: "budget spent", MandateID: "m1", Err: cause}
	p = errs.Public(fmt.Errorf("consume: %w", r))
	if p.Code != errs.LimitExceeded || p.Message != "budget spent" || p.MandateID != "m1" || p.Err != nil {
		t.Fatalf("Public(refusal) = %+v", p)
	}
	if !errors.Is(r, cause) {
		t.Fatal("a refusal unwraps to its cause")
	}
}

func TestAllCodesAreDistinct(t *testing.T) {
	seen := map[errs.Code]bool{}
	for _, c := range errs.All() {
		if c == "" || seen[c] {
			t.Fatalf("code %q is empty or listed twice", c)
		}
		seen[c] = true
	}
}
