package logformat

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/pactboard/pact/core/canon"
)

// decoded is one line, decoded, with what its entry's own contents say
// (reason: "" when its hash and its payload's hold).
type decoded struct {
	rec    Record
	reason string
	err    error
}

// batch is a run of lines, decoded by one worker; seq keeps their order.
type batch struct {
	seq   int64
	first int64 // the first line's number
	lines [][]byte
	text  []byte // the lines' bytes, one allocation for the batch
	out   []decoded
}

// batchLines is how many lines a worker takes at once.
const batchLines = 512

// decodeLines reads r's lines and hands each, decoded, to take in order.
// Decoding a line and checking its entry's hash and payload need nothing
// from the lines before, so workers do that side by side (JSON decoding
// and hashing are most of the time); what links entries runs in take, in
// order. Memory stays bounded: at most a few batches are in flight.
func decodeLines(r io.Reader, take func(d *decoded, line int64) error) error {
	workers := runtime.GOMAXPROCS(0)
	todo, done := make(chan *batch, workers), make(chan *batch, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			w := &worker{}
			for b := range todo {
				w.decode(b)
				done <- b
			}
		})
	}
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		readErr <- readBatches(r, todo, stop)
		close(todo)
		wg.Wait()
		close(done)
	}()
	pending := map[int64]*batch{}
	next := int64(0)
	var takeErr error
	for b := range done {
		pending[b.seq] = b
		for b := pending[next]; b != nil && takeErr == nil; b = pending[next] {
			delete(pending, next)
			next++
			for i := range b.out {
				if b.out[i].err != nil {
					takeErr = fmt.Errorf("bundle line %d: %w", b.first+int64(i), b.out[i].err)
					break
				}
				if takeErr = take(&b.out[i], b.first+int64(i)); takeErr != nil {
					break
				}
			}
		}
		if takeErr != nil {
			close(stop)
			for range done { // let the reader and workers finish
			}
			break
		}
	}
	if takeErr != nil {
		return takeErr
	}
	return <-readErr
}

// readBatches cuts r into batches of lines until it ends or stop closes.
func readBatches(r io.Reader, todo chan<- *batch, stop <-chan struct{}) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line, seq := int64(0), int64(0)
	b := &batch{first: 1, text: make([]byte, 0, batchLines*1024)}
	send := func() bool {
		size := cap(b.text) // read before a worker owns b
		select {
		case todo <- b:
		case <-stop:
			return false
		}
		seq++
		b = &batch{seq: seq, first: line + 1, text: make([]byte, 0, size)}
		return true
	}
	for sc.Scan() {
		line++
		start := len(b.text)
		b.text = append(b.text, sc.Bytes()...)
		b.lines = append(b.lines, b.text[start:len(b.text):len(b.text)])
		if len(b.lines) == batchLines && !send() {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("bundle line %d: %w", line+1, err)
	}
	if len(b.lines) > 0 {
		send()
	}
	return nil
}

// worker decodes batches with buffers of its own.
type worker struct {
	h        Hashed
	buf, pay []byte
	recoder  canon.Recoder
}

func (w *worker) decode(b *batch) {
	b.out = make([]decoded, len(b.lines))
	for i, l := range b.lines {
		d := &b.out[i]
		if d.err = json.Unmarshal(l, &d.rec); d.err != nil {
			continue
		}
		if d.rec.Kind == KindEntry && d.rec.Entry != nil {
			d.reason = w.contents(d.rec.ChainKey, d.rec.Entry)
		}
	}
	b.lines, b.text = nil, nil
}

// contents checks the entry's hash and its payload's; "" when both hold.
func (w *worker) contents(chain string, e *Entry) string {
	t, err := time.Parse(time.RFC3339Nano, e.At)
	if err != nil {
		return "its time is not RFC 3339"
	}
	h := &w.h
	h.ChainKey, h.ProjectID, h.TaskID, h.AgentID = []byte(chain), ptrBytes(e.ProjectID), ptrBytes(e.TaskID), ptrBytes(e.AgentID)
	h.Actor, h.Action, h.PayloadHash, h.Outcome, h.PrevHash = []byte(e.Actor), []byte(e.Action), []byte(e.PayloadHash), []byte(e.Outcome), []byte(e.PrevHash)
	h.At = t
	h.MandateChain = h.MandateChain[:0]
	for _, id := range e.MandateChain {
		h.MandateChain = append(h.MandateChain, []byte(id))
	}
	w.buf = h.AppendCanonical(w.buf[:0])
	if sum := HashHex(w.buf); string(sum[:]) != e.Hash {
		return "entry contents do not match its hash"
	}
	if e.Erased {
		if len(e.Payload) > 0 {
			return "an erased payload is present"
		}
		return ""
	}
	if len(e.Payload) == 0 {
		return "the payload is missing and not marked erased"
	}
	if w.pay, err = w.recoder.Append(w.pay[:0], e.Payload); err != nil {
		return "the payload is not canonical-JSON material"
	}
	if sum := HashHex(w.pay); string(sum[:]) != e.PayloadHash {
		return "payload does not match payload_hash"
	}
	return ""
}

func ptrBytes(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}
