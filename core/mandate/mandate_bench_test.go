package mandate_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
)

// benchVerify verifies the leaf of a chain with depth links below the root,
// each in its own transaction, as every tool call does.
func benchVerify(b *testing.B, depth int) {
	w := newWorld(b)
	holders := []string{"a2", "a3", "a4", "a5", "a6"}[:depth]
	links := w.line(map[string]float64{"thb": 100000}, holders...)
	leaf := links[len(links)-1]
	id := leaf.ID.String()
	b.ResetTimer()
	for b.Loop() {
		if _, err := w.verify(id, leaf.Holder); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyDepth1(b *testing.B) { benchVerify(b, 1) }

func BenchmarkVerifyDepth5(b *testing.B) { benchVerify(b, 5) }

// BenchmarkConsume spends one unit of two limited keys through a chain of
// depth 1 (four usage rows), one transaction per call.
func BenchmarkConsume(b *testing.B) {
	w := newWorld(b)
	limits := map[string]float64{"tasks": 1e12, "thb": 1e12}
	root := w.root("a1", web, limits, 2)
	c := w.chain(w.child(root, "a2", web, limits))
	amounts := map[string]float64{"tasks": 1, "thb": 40}
	b.ResetTimer()
	for b.Loop() {
		err := w.tx(func(tx bun.IDB) error {
			_, err := w.svc.Consume(w.ctx, tx, c, amounts, true)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	left := w.remaining(c.Leaf())
	require.Less(b, left["tasks"], 1e12)
}
