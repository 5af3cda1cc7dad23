package tenuo

import (
	"encoding/hex"
	"errors"
	"time"
)

// popWindow is the PoP time bucket in seconds, and popWindows the buckets
// a verifier tries (0, -1, +1, -2, +2: about ±60 s).
const (
	popWindow  = 30
	popWindows = 5
)

// popChallenge is the CBOR the holder signs: [hex id without "tnu_wrt_",
// tool, [[arg, value]…] sorted by arg bytes, window start]. The id form
// follows Tenuo's verify_pop, not vector A.6 (docs/specs/credential-formats.md §2.10).
func popChallenge(id [16]byte, tool string, args map[string]any, window int64) ([]byte, error) {
	pairs := make([]any, 0, len(args))
	for _, k := range sortedKeys(args) {
		v, err := value(args[k])
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, []any{k, v})
	}
	return encMode().Marshal([]any{hex.EncodeToString(id[:]), tool, pairs, window})
}

func windowOf(t time.Time) int64 {
	s := t.Unix()
	w := s / popWindow
	if s%popWindow < 0 {
		w-- // floor, not truncation, for times before 1970
	}
	return w * popWindow
}

// SignPoP signs a tool call with the holder's seed at time now.
func SignPoP(holderSeed []byte, id [16]byte, tool string, args map[string]any, now time.Time) ([]byte, error) {
	ch, err := popChallenge(id, tool, args, windowOf(now))
	if err != nil {
		return nil, err
	}
	return sign(holderSeed, []byte(ctxOuter), []byte(ctxPoP), ch)
}

// VerifyPoP checks that the warrant's holder signed this call within about
// a minute of now. It proves possession only: whether the warrant allows
// the call is Authorize's question.
func VerifyPoP(w *Payload, tool string, args map[string]any, sig []byte, now time.Time) error {
	base := windowOf(now)
	for i := 0; i < popWindows; i++ {
		off := int64((i + 1) / 2)
		if i%2 == 1 {
			off = -off
		}
		ch, err := popChallenge(w.ID, tool, args, base+off*popWindow)
		if err != nil {
			return err
		}
		if verify(w.Holder, sig, []byte(ctxOuter), []byte(ctxPoP), ch) {
			return nil
		}
	}
	return errors.New("tenuo: proof of possession does not verify")
}
