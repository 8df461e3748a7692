package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"time"
)

// Vectors are the embeddings of an agent's passages (docs/agent.md, "Hybrid
// retrieval"), keyed by the agent, the embedding model's name and a hash of
// the passage's text (TextHash): unchanged text is never embedded twice,
// and another model's vectors are other rows. They go with their agent.
type Vectors interface {
	// PutVectors stores vectors of model for the agent, replacing any of
	// the same hash.
	PutVectors(ctx context.Context, agentID, model string, vs []Vector) error
	// Vectors returns the agent's vectors of model by hash.
	Vectors(ctx context.Context, agentID, model string) (map[string][]float32, error)
	// KeepVectors deletes the agent's vectors stored before before that
	// are of other models, or of model with a hash not in keep (text that
	// changed or went), and says how many went. before keeps what a later
	// embedding, of newer knowledge, stored meanwhile.
	KeepVectors(ctx context.Context, agentID, model string, keep []string, before time.Time) (int, error)
}

// Vector is one passage's embedding.
type Vector struct {
	Hash string // TextHash of the passage's text
	Vec  []float32
}

// TextHash is the key of a passage's text: SHA-256, hex.
func TextHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

// MaxVectorDims bounds a stored vector (the largest common models have
// 3,072 dimensions).
const MaxVectorDims = 8192

// ErrBadVector: a vector that is empty, too long, or holds NaN or ±Inf.
var ErrBadVector = errors.New("store: vector empty, too long or not finite")

// EncodeVector writes v as little-endian float32s, as both stores keep it.
func EncodeVector(v []float32) ([]byte, error) {
	if len(v) == 0 || len(v) > MaxVectorDims {
		return nil, ErrBadVector
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, ErrBadVector
		}
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b, nil
}

// DecodeVector reads what EncodeVector wrote; nil when b is not a whole
// number of float32s.
func DecodeVector(b []byte) []float32 {
	if len(b)%4 != 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
