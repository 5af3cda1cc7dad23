package identity_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// A term of d days ends exactly d*24h after the service's own clock (UTC,
// to the microsecond); 0 means the default 30 days; more than 0 and at most
// 365 is accepted, anything else refused, naming what.
func TestATermEndsExactlyItsDaysAfterTheServicesClock(t *testing.T) {
	f := setup(t)
	// Nanoseconds and a zone that is not UTC, so the rounding and the UTC
	// conversion are both seen.
	f.now = time.Date(2030, 1, 2, 3, 4, 5, 678901234, time.FixedZone("ICT", 7*3600))
	day := 24 * time.Hour
	ends := func(d time.Duration) time.Time { return f.now.Add(d).UTC().Truncate(time.Microsecond) }
	cases := []struct {
		name string
		days float64
		want time.Time // zero: refused
	}{
		{"zero means the default 30 days", 0, ends(30 * day)},
		{"one day", 1, ends(day)},
		{"half a day", 0.5, ends(12 * time.Hour)},
		{"the longest term", 365, ends(365 * day)},
		{"just over the longest term", 365.000001, time.Time{}},
		{"a year and a day", 366, time.Time{}},
		{"negative", -1, time.Time{}},
		{"a hair below zero", -1e-9, time.Time{}},
		{"not a number", math.NaN(), time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.svc.Term("the token's term", tc.days)
			if tc.want.IsZero() {
				require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%v", err)
				require.Contains(t, errs.Public(err).Message, "the token's term must be more than 0 and at most 365 days")
				require.True(t, got.IsZero())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, time.UTC, got.Location())
		})
	}
}

// Options.Now is the service's clock; without it, or without options at
// all, the service reads the wall clock.
func TestTheServiceClockIsOptionsNowOrTheWallClock(t *testing.T) {
	f := setup(t)
	f.now = time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	require.Equal(t, f.now, f.svc.Now())

	for name, opts := range map[string]*identity.Options{"no options": nil, "options without a clock": {}} {
		svc := identity.NewService(f.d, ledger.New(nil), opts)
		before := time.Now()
		now := svc.Now()
		require.False(t, now.Before(before), name)
		require.False(t, now.After(time.Now()), name)
	}
}
