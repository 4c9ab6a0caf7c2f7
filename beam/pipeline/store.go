package pipeline

// What one pipeline run leaves for the next in the work directory: sharded
// files of one record per line, each record a compact binary form in
// base64 (records hold ids with any bytes, and sets and signatures).

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/wire"
)

func init() {
	beam.RegisterType(reflect.TypeFor[shardKeyFn]())
	register.Emitter2[int, string]()
	register.Function1x2(blankLine)
	beam.RegisterType(reflect.TypeFor[writeShardFn]())
	register.Iter1[string]()
}

// shardName is the name of shard i of n of the file set prefix.
func shardName(prefix string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d", prefix, i, n)
}

// shardGlob matches every shard of the file set prefix.
func shardGlob(prefix string) string { return prefix + "-*-of-*" }

// writeShards writes the lines of col (PCollection<string>) to n shard
// files of the set prefix, every shard written even when it gets no line
// (so that a later read finds the set complete). A line goes to the shard
// its hash chooses; the order of lines in a shard is not defined.
func writeShards(s beam.Scope, prefix string, n int, col beam.PCollection) {
	s = s.Scope("write " + prefix[strings.LastIndexAny(prefix, `/\`)+1:])
	keyed := beam.ParDo(s, &shardKeyFn{N: n}, col)
	var all []int
	for i := range n {
		all = append(all, i)
	}
	blanks := beam.ParDo(s, blankLine, beam.CreateList(s, all))
	beam.ParDo0(s, &writeShardFn{Prefix: prefix, N: n}, beam.GroupByKey(s, beam.Flatten(s, keyed, blanks)))
}

// readShards reads back the lines written by writeShards.
func readShards(s beam.Scope, prefix string) beam.PCollection {
	return textio.Read(s.Scope("read "+prefix[strings.LastIndexAny(prefix, `/\`)+1:]), shardGlob(prefix))
}

type shardKeyFn struct{ N int }

func (f *shardKeyFn) ProcessElement(line string, emit func(int, string)) {
	h := fnv.New64a()
	h.Write([]byte(line))
	emit(int(h.Sum64()%uint64(f.N)), line)
}

// blankLine gives every shard an element, the empty line, which
// writeShardFn does not write (records are never empty).
func blankLine(i int) (int, string) { return i, "" }

type writeShardFn struct {
	Prefix string
	N      int
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int, lines func(*string) bool) error {
	return createFile(ctx, shardName(f.Prefix, shard, f.N), func(w *bufio.Writer) error {
		var line string
		for lines(&line) {
			if line == "" {
				continue
			}
			w.WriteString(line)
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	})
}

// createFile writes the file name through Beam's file systems: write fills
// a buffered writer, which is then flushed and the file closed. Errors
// name the file.
func createFile(ctx context.Context, name string, write func(*bufio.Writer) error) (err error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	f, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", name, cerr)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// rec builds a record's binary form, which internal/wire's Decoder reads
// back (see decode): unsigned varints, 8-byte floats, counted strings and
// counted little-endian arrays.
type rec []byte

// int appends v >= 0 (sequence numbers, sizes).
func (r rec) int(v int64) rec     { return binary.AppendUvarint(r, uint64(v)) }
func (r rec) float(v float64) rec { return binary.LittleEndian.AppendUint64(r, math.Float64bits(v)) }
func (r rec) str(v string) rec    { return append(binary.AppendUvarint(r, uint64(len(v))), v...) }
func (r rec) line() string        { return base64.RawStdEncoding.EncodeToString(r) }

func (r rec) u64s(v []uint64) rec {
	r = binary.AppendUvarint(r, uint64(len(v)))
	for _, x := range v {
		r = binary.LittleEndian.AppendUint64(r, x)
	}
	return r
}

func (r rec) u32s(v []uint32) rec {
	r = binary.AppendUvarint(r, uint64(len(v)))
	for _, x := range v {
		r = binary.LittleEndian.AppendUint32(r, x)
	}
	return r
}

// dec reads a record written by rec.
type dec struct {
	wire.Decoder
	err error
}

func decode(line string) *dec {
	b, err := base64.RawStdEncoding.DecodeString(line)
	if err != nil {
		return &dec{Decoder: wire.Decoder{Bad: true}, err: fmt.Errorf("neardup work file: %w", err)}
	}
	return &dec{Decoder: wire.Decoder{B: b}}
}

func (d *dec) int() int64     { return int64(d.Int(math.MaxInt64)) }
func (d *dec) float() float64 { return math.Float64frombits(d.Uint64()) }
func (d *dec) str() string    { return string(d.Bytes()) }
func (d *dec) u64s() []uint64 { return d.Uint64s() }
func (d *dec) u32s() []uint32 { return d.Uint32s() }

// done returns an error for a record that was malformed, short or long.
func (d *dec) done() error {
	switch {
	case d.err != nil:
		return d.err
	case d.Bad:
		return errors.New("neardup work file: a truncated record")
	case len(d.B) != 0:
		return fmt.Errorf("neardup work file: %d bytes after a record", len(d.B))
	}
	return nil
}
