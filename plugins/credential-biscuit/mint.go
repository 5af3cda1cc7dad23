package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/biscuit-auth/biscuit-go/v2"
	"github.com/biscuit-auth/biscuit-go/v2/pb"
	"google.golang.org/protobuf/proto"
)

// RootKeyID is the Biscuit root key id of a board key: the first 4 bytes of
// SHA-256 of the raw public key, big-endian.
func RootKeyID(pub ed25519.PublicKey) uint32 {
	sum := sha256.Sum256(pub)
	return binary.BigEndian.Uint32(sum[:4])
}

// mint builds the token: the authority block from blocks[0] signed with
// root, then one attenuation block per later link. It returns the
// serialized token and each block's revocation id.
func mint(blocks []blockPlan, root ed25519.PrivateKey) ([]byte, [][]byte, error) {
	b := biscuit.NewBuilder(root, biscuit.WithRandom(rand.Reader))
	facts, checks := blockContent(blocks[0], true)
	for _, f := range facts {
		if err := b.AddAuthorityFact(f); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range checks {
		if err := b.AddAuthorityCheck(c); err != nil {
			return nil, nil, err
		}
	}
	tok, err := b.Build()
	if err != nil {
		return nil, nil, err
	}
	for _, bp := range blocks[1:] {
		bb := tok.CreateBlock()
		facts, checks := blockContent(bp, false)
		for _, f := range facts {
			if err := bb.AddFact(f); err != nil {
				return nil, nil, err
			}
		}
		for _, c := range checks {
			if err := bb.AddCheck(c); err != nil {
				return nil, nil, err
			}
		}
		if tok, err = tok.Append(rand.Reader, bb.Build()); err != nil {
			return nil, nil, err
		}
	}
	raw, err := tok.Serialize()
	if err != nil {
		return nil, nil, err
	}
	raw, err = withRootKeyID(raw, RootKeyID(root.Public().(ed25519.PublicKey)))
	if err != nil {
		return nil, nil, err
	}
	ids := tok.RevocationIds()
	if len(ids) != len(blocks) {
		return nil, nil, fmt.Errorf("biscuit has %d revocation ids for %d blocks", len(ids), len(blocks))
	}
	return raw, ids, nil
}

// withRootKeyID sets the token's root_key_id. biscuit-go v2.2.0 cannot set
// it, but the field lies outside every signed payload, so re-marshalling the
// container keeps the signatures valid.
func withRootKeyID(raw []byte, id uint32) ([]byte, error) {
	var c pb.Biscuit
	if err := proto.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	c.RootKeyId = &id
	return proto.MarshalOptions{Deterministic: true}.Marshal(&c)
}

// rootKeyIDOf reads a token's root_key_id; ok is false when it has none.
func rootKeyIDOf(raw []byte) (uint32, bool) {
	var c pb.Biscuit
	if err := proto.Unmarshal(raw, &c); err != nil || c.RootKeyId == nil {
		return 0, false
	}
	return *c.RootKeyId, true
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
