package tenuo

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// Warrant types (payload key 2).
const (
	Execution = 0
	Issuer    = 1
)

// Algorithm id of Ed25519 in keys and signatures, the only one Tenuo has.
const algEd25519 = 1

// Payload is a WarrantPayload. Optional fields are written only when set,
// as serde's skip_serializing_if does; Depth is always written, as Tenuo
// does.
type Payload struct {
	ID                [16]byte
	Type              uint64
	Tools             map[string]ConstraintSet
	Holder, Issuer    ed25519.PublicKey
	IssuedAt          uint64
	ExpiresAt         uint64
	MaxDepth          uint64
	ParentHash        []byte            // 32 bytes; nil for a root
	Extensions        map[string][]byte // raw values, written as int arrays
	IssuableTools     []string
	MaxIssueDepth     *uint64
	ConstraintBounds  *ConstraintSet
	RequiredApprovers []ed25519.PublicKey
	MinApprovals      *uint64
	Clearance         *uint64
	Depth             uint64
}

// IDString is the id as Tenuo prints it and as revocation lists name it.
func (p *Payload) IDString() string { return "tnu_wrt_" + hex.EncodeToString(p.ID[:]) }

func key(k ed25519.PublicKey) []any { return []any{uint64(algEd25519), []byte(k)} }

// Encode writes the payload bytes Tenuo would write for it.
func (p *Payload) Encode() ([]byte, error) {
	if p.Tools == nil && p.Type == Execution {
		return nil, errors.New("tenuo: execution warrant without tools")
	}
	tools := make(omap, 0, len(p.Tools))
	for _, name := range sortedKeys(p.Tools) {
		cs, err := p.Tools[name].enc()
		if err != nil {
			return nil, err
		}
		tools = append(tools, entry{name, cs})
	}
	m := omap{{0, 1}, {1, p.ID[:]}, {2, p.Type}, {3, tools}, {4, key(p.Holder)}, {5, key(p.Issuer)},
		{6, p.IssuedAt}, {7, p.ExpiresAt}, {8, p.MaxDepth}}
	if p.ParentHash != nil {
		m = append(m, entry{9, ints(p.ParentHash)})
	}
	if len(p.Extensions) > 0 {
		ext := make(omap, 0, len(p.Extensions))
		for _, k := range sortedKeys(p.Extensions) {
			ext = append(ext, entry{k, ints(p.Extensions[k])})
		}
		m = append(m, entry{10, ext})
	}
	if p.IssuableTools != nil {
		m = append(m, entry{11, p.IssuableTools})
	}
	if p.MaxIssueDepth != nil {
		m = append(m, entry{13, *p.MaxIssueDepth})
	}
	if p.ConstraintBounds != nil {
		cb, err := p.ConstraintBounds.enc()
		if err != nil {
			return nil, err
		}
		m = append(m, entry{14, cb})
	}
	if p.RequiredApprovers != nil {
		as := make([]any, len(p.RequiredApprovers))
		for i, a := range p.RequiredApprovers {
			as[i] = key(a)
		}
		m = append(m, entry{15, as})
	}
	if p.MinApprovals != nil {
		m = append(m, entry{16, *p.MinApprovals})
	}
	if p.Clearance != nil {
		m = append(m, entry{17, *p.Clearance})
	}
	m = append(m, entry{18, p.Depth})
	return encMode().Marshal(m)
}

// DecodePayload reads payload bytes, refusing unknown and duplicate keys
// as Tenuo's decoder does and any constraint shape it cannot read.
func DecodePayload(b []byte) (*Payload, error) {
	var m map[uint64]cbor.RawMessage
	if err := decMode().Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("tenuo: payload: %w", err)
	}
	for _, k := range []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8} {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("tenuo: payload: missing key %d", k)
		}
	}
	p := &Payload{}
	dm := decMode()
	for k, raw := range m {
		var err error
		switch k {
		case 0:
			var v uint64
			if err = dm.Unmarshal(raw, &v); err == nil && v != 1 {
				err = fmt.Errorf("version %d", v)
			}
		case 1:
			var id []byte
			if err = dm.Unmarshal(raw, &id); err == nil && len(id) != 16 {
				err = errors.New("id is not 16 bytes")
			}
			copy(p.ID[:], id)
		case 2:
			if err = dm.Unmarshal(raw, &p.Type); err == nil && p.Type > Issuer {
				err = fmt.Errorf("warrant type %d", p.Type)
			}
		case 3:
			var tools map[string]cbor.RawMessage
			if err = dm.Unmarshal(raw, &tools); err == nil {
				p.Tools = make(map[string]ConstraintSet, len(tools))
				for name, cr := range tools {
					if p.Tools[name], err = decodeConstraintSet(cr); err != nil {
						break
					}
				}
			}
		case 4:
			p.Holder, err = decodeKey(raw)
		case 5:
			p.Issuer, err = decodeKey(raw)
		case 6:
			err = dm.Unmarshal(raw, &p.IssuedAt)
		case 7:
			err = dm.Unmarshal(raw, &p.ExpiresAt)
		case 8:
			if err = dm.Unmarshal(raw, &p.MaxDepth); err == nil && p.MaxDepth > 64 {
				err = errors.New("max_depth above 64")
			}
		case 9:
			if p.ParentHash, err = fromInts(raw); err == nil && len(p.ParentHash) != 32 {
				err = errors.New("parent_hash is not 32 bytes")
			}
		case 10:
			var ext map[string]cbor.RawMessage
			if err = dm.Unmarshal(raw, &ext); err == nil {
				p.Extensions = make(map[string][]byte, len(ext))
				for name, er := range ext {
					if p.Extensions[name], err = fromInts(er); err != nil {
						break
					}
				}
			}
		case 11:
			err = dm.Unmarshal(raw, &p.IssuableTools)
		case 13:
			p.MaxIssueDepth = new(uint64)
			err = dm.Unmarshal(raw, p.MaxIssueDepth)
		case 14:
			var cs ConstraintSet
			cs, err = decodeConstraintSet(raw)
			p.ConstraintBounds = &cs
		case 15:
			var as []cbor.RawMessage
			if err = dm.Unmarshal(raw, &as); err == nil {
				p.RequiredApprovers = make([]ed25519.PublicKey, len(as))
				for i, a := range as {
					if p.RequiredApprovers[i], err = decodeKey(a); err != nil {
						break
					}
				}
			}
		case 16:
			p.MinApprovals = new(uint64)
			err = dm.Unmarshal(raw, p.MinApprovals)
		case 17:
			p.Clearance = new(uint64)
			err = dm.Unmarshal(raw, p.Clearance)
		case 18:
			err = dm.Unmarshal(raw, &p.Depth)
		default:
			err = errors.New("unknown key")
		}
		if err != nil {
			return nil, fmt.Errorf("tenuo: payload key %d: %w", k, err)
		}
	}
	return p, nil
}

// decodeKey reads [1, bytes(32)].
func decodeKey(raw cbor.RawMessage) (ed25519.PublicKey, error) {
	alg, b, err := decodeAlgBytes(raw)
	if err == nil && (alg != algEd25519 || len(b) != ed25519.PublicKeySize) {
		err = errors.New("not an Ed25519 public key")
	}
	return ed25519.PublicKey(b), err
}

func decodeAlgBytes(raw cbor.RawMessage) (uint64, []byte, error) {
	var pair []cbor.RawMessage
	if err := decMode().Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return 0, nil, errors.New("not an [alg, bytes] pair")
	}
	var alg uint64
	var b []byte
	if err := decMode().Unmarshal(pair[0], &alg); err != nil {
		return 0, nil, err
	}
	if err := decMode().Unmarshal(pair[1], &b); err != nil {
		return 0, nil, err
	}
	return alg, b, nil
}
