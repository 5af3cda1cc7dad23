package logformat

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// A Checkpoint is a signed statement of one chain's state: its origin (the
// chain's name, unique to the board), how many entries it holds and the
// hash of the last one, and when the board said so. Its text is the C2SP
// tlog-checkpoint format (docs/log-checkpoints.md): the origin, the size in
// decimal and the head hash in base64, one per line, then one extension
// line, "time <RFC 3339>"; the signed note around it is C2SP signed-note.
// The head is the chain's last entry hash, not a Merkle root: the chain
// links every entry to the one before, so agreeing on the head at size N
// is agreeing on every entry up to N.
type Checkpoint struct {
	Origin string
	Size   int64
	Head   string // lowercase hex, as entries store hashes
	Time   time.Time
}

// timePrefix starts the checkpoint's extension line.
const timePrefix = "time "

// Text is the checkpoint's note text.
func (c Checkpoint) Text() (string, error) {
	head, err := hex.DecodeString(c.Head)
	if err != nil || len(head) != 32 {
		return "", fmt.Errorf("checkpoint of %s: the head %q is not a SHA-256 in hex", c.Origin, c.Head)
	}
	if c.Origin == "" || strings.ContainsAny(c.Origin, "\n") || c.Size < 1 {
		return "", fmt.Errorf("checkpoint of %q: an origin on one line and a size of at least 1 are needed", c.Origin)
	}
	return fmt.Sprintf("%s\n%d\n%s\n%s%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(head),
		timePrefix, c.Time.UTC().Format(time.RFC3339Nano)), nil
}

// ParseCheckpoint reads a checkpoint's note text.
func ParseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 3 {
		return Checkpoint{}, errors.New("a checkpoint has at least three lines: origin, size, head")
	}
	c := Checkpoint{Origin: lines[0]}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 1 || strconv.FormatInt(size, 10) != lines[1] {
		return Checkpoint{}, fmt.Errorf("checkpoint of %s: the size %q is not a positive decimal", c.Origin, lines[1])
	}
	c.Size = size
	head, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(head) != 32 {
		return Checkpoint{}, fmt.Errorf("checkpoint of %s: the head is not a base64 SHA-256", c.Origin)
	}
	c.Head = hex.EncodeToString(head)
	for _, l := range lines[3:] {
		if t, ok := strings.CutPrefix(l, timePrefix); ok {
			if c.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
				return Checkpoint{}, fmt.Errorf("checkpoint of %s: the time %q: %w", c.Origin, t, err)
			}
		}
	}
	return c, nil
}

// Sign signs c with s, as a signed note.
func Sign(c Checkpoint, s note.Signer) (string, error) {
	text, err := c.Text()
	if err != nil {
		return "", err
	}
	signed, err := note.Sign(&note.Note{Text: text}, s)
	return string(signed), err
}

// Open verifies a signed checkpoint against the trusted keys and reads it.
// It fails when no signature is by a trusted key or one that is fails.
func Open(signed string, trusted note.Verifiers) (Checkpoint, error) {
	n, err := note.Open([]byte(signed), trusted)
	if err != nil {
		return Checkpoint{}, err
	}
	return ParseCheckpoint(n.Text)
}

// signer is a note.Signer over an Ed25519 key.
type signer struct {
	name string
	hash uint32
	key  ed25519.PrivateKey
}

func (s *signer) Name() string                    { return s.name }
func (s *signer) KeyHash() uint32                 { return s.hash }
func (s *signer) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.key, msg), nil }

// NewSigner is a note signer named name over the Ed25519 key with seed,
// and its verifier key ("<name>+<hash>+<key>"), which outsiders keep.
func NewSigner(name string, seed []byte) (note.Signer, string, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, "", fmt.Errorf("a checkpoint key needs a %d-byte Ed25519 seed", ed25519.SeedSize)
	}
	key := ed25519.NewKeyFromSeed(seed)
	vkey, err := note.NewEd25519VerifierKey(name, key.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, "", err
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, "", err
	}
	return &signer{name: name, hash: v.KeyHash(), key: key}, vkey, nil
}

// Verifiers are the verifier keys vkeys, as note.Open takes them. A value
// may hold several keys apart by white space, as /.well-known/pact-log/keys
// lists them, one per line.
func Verifiers(vkeys ...string) (note.Verifiers, error) {
	var vs []note.Verifier
	for _, k := range vkeys {
		for _, one := range strings.Fields(k) {
			v, err := note.NewVerifier(one)
			if err != nil {
				return nil, fmt.Errorf("verifier key %q: %w", one, err)
			}
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil, errors.New("no verifier key")
	}
	return note.VerifierList(vs...), nil
}

// BoardKeys names the board's checkpoint keys after the host of its public
// URL: each key kid is "<host>/pact-log/<kid>", and each chain's origin is
// origin followed by the chain key. It returns the signer of the first
// kid (the keyring's active key) and the verifier keys of all of them.
func BoardKeys(publicURL string, kids []string, seed func(kid string) []byte) (s note.Signer, origin string, vkeys []string, err error) {
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" {
		return nil, "", nil, fmt.Errorf("the public URL %q has no host to name the log by", publicURL)
	}
	origin = u.Host + "/pact-log/"
	for _, kid := range kids {
		signer, vkey, err := NewSigner(origin+kid, seed(kid))
		if err != nil {
			return nil, "", nil, err
		}
		if s == nil {
			s = signer
		}
		vkeys = append(vkeys, vkey)
	}
	if s == nil {
		return nil, "", nil, errors.New("the keyring holds no key to sign checkpoints with")
	}
	return s, origin, vkeys, nil
}
