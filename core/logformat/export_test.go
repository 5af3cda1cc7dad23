package logformat

import "io"

// Work is what a verification did: the checkpoint signatures it verified
// (once per distinct note) and the times it held a checkpoint against an
// entry, a chain's end or the chain's absence.
type Work struct{ Signatures, Comparisons int64 }

// VerifyCounting is Verify, also telling the work it did.
func VerifyCounting(r io.Reader, o Options) (*Report, Work, error) {
	v, err := verify(r, o)
	if err != nil {
		return nil, Work{}, err
	}
	return v.rep, Work{Signatures: v.work.signatures, Comparisons: v.work.comparisons}, nil
}
