package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cliflags"
	"github.com/neardup/neardup/corpus"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/dedupout"
)

const indexUsage = `Usage: neardup index COMMAND [flags] ...

Builds and uses a persistent near-duplicate index: documents go in once,
and new documents are checked against all of them, with exact Jaccard.
An index is a directory (--index DIR, the embedded store).

Commands:
  create  --index DIR [shingling and threshold flags]   make an empty index
  build   --index DIR INPUT...     bulk-load a corpus (any dedup input format), no duplicate check
  add     --index DIR INPUT...     insert every document, listing its near-duplicates already indexed
  query   --index DIR INPUT...     list each document's near-duplicates in the index;
                                   --add inserts the documents that have none (incremental dedup)
  remove  --index DIR ID...        delete documents by id
  stats   --index DIR [--check]    counts and parameters; --check verifies the index
  check   --index DIR              read every record and verify the index (stats --check)
  repair  --index DIR --out NEW    copy what can be read of a damaged index to a new one, saying what is lost

add and query write one line per match, id<TAB>indexed_id<TAB>jaccard (6
decimals), most similar first, to standard output or --output FILE.

Run "neardup index COMMAND --help" for a command's flags.
`

var indexCommands = []command{
	{"create", "make an empty index", runIndexCreate},
	{"build", "bulk-load a corpus", runIndexBuild},
	{"add", "insert documents, listing their near-duplicates", runIndexAdd},
	{"query", "list documents' near-duplicates in the index", runIndexQuery},
	{"remove", "delete documents by id", runIndexRemove},
	{"stats", "counts and parameters; --check verifies", runIndexStats},
	{"check", "verify the whole index", runIndexCheck},
	{"repair", "copy what can be read of a damaged index to a new one", runIndexRepair},
}

func runIndex(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: missing index command (create, build, add, query, remove or stats)", errUsage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, indexUsage)
		return nil
	}
	var names []string
	for _, c := range indexCommands {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
		names = append(names, c.name)
	}
	msg := fmt.Sprintf("unknown index command %q", args[0])
	if g := suggest(args[0], names); g != "" {
		msg += " (did you mean " + g + "?)"
	}
	return fmt.Errorf("%w: %s", errUsage, msg)
}

// indexFlags are the flags every index command takes: where the index is.
type indexFlags struct {
	dir string
}

func (f *indexFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "index", "", "the index directory (required)")
}

// openMode says how a command opens the index directory.
type openMode int

const (
	openRead   openMode = iota // an existing index, nothing in DIR written or deleted
	openWrite                  // an existing index, or a new one in a missing or empty DIR
	openCreate                 // a new index: DIR missing or empty
)

// store opens the store, or reports a usage error when no index was named.
func (f *indexFlags) store(ctx context.Context, mode openMode) (index.Store, string, error) {
	if f.dir == "" {
		return nil, "", fmt.Errorf("%w: --index DIR is required", errUsage)
	}
	st, err := index.OpenPebble(ctx, f.dir, index.PebbleOptions{ReadOnly: mode == openRead, Create: mode == openCreate})
	switch {
	case errors.Is(err, index.ErrNoIndex):
		return nil, "", fmt.Errorf("%s: no index there (make one with neardup index create or build)", f.dir)
	case errors.Is(err, index.ErrExists):
		return nil, "", fmt.Errorf("%s: holds an index already (index create makes a new one in a missing or empty directory)", f.dir)
	case err != nil:
		return nil, "", err
	}
	return st, f.dir, nil
}

// open opens an existing index, for writing or not.
func (f *indexFlags) open(ctx context.Context, write bool) (*index.Index, error) {
	mode := openRead
	if write {
		mode = openWrite
	}
	st, name, err := f.store(ctx, mode)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(ctx, st, index.Options{})
	if err != nil {
		st.Close()
		if errors.Is(err, index.ErrNoIndex) {
			return nil, fmt.Errorf("%s: no index there (make one with neardup index create or build)", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ix, nil
}

// createFlags are the flags that define a new index.
type createFlags struct {
	sh      cliflags.Input
	params  cliflags.Params
	noTexts bool
}

func (f *createFlags) register(fs *flag.FlagSet) {
	f.sh.RegisterShingle(fs)
	f.params.Register(fs)
	fs.BoolVar(&f.noTexts, "no-texts", false, "do not keep the documents' texts (then they cannot be shown back)")
}

func (f *createFlags) meta(fs *flag.FlagSet) (index.Meta, error) {
	so, err := f.sh.ShingleOptions()
	if err != nil {
		return index.Meta{}, err
	}
	f.params.Given(fs)
	p, err := f.params.Params(so)
	if err != nil {
		return index.Meta{}, err
	}
	return index.Meta{Params: p, KeepTexts: !f.noTexts}, nil
}

// openOrCreate opens the index in the directory, checking the parameters
// given on the command line against it, or creates it with them.
func (f *indexFlags) openOrCreate(ctx context.Context, cf *createFlags, fs *flag.FlagSet) (*index.Index, bool, error) {
	m, err := cf.meta(fs)
	if err != nil {
		return nil, false, err
	}
	st, name, err := f.store(ctx, openWrite)
	if err != nil {
		return nil, false, err
	}
	given := cf.params.GivenFields()
	if cf.params.Set["no-texts"] {
		given = append(given, "KeepTexts")
	}
	ix, isNew, err := openAsked(ctx, st, name, m, given, "no-texts", index.Options{})
	if err != nil {
		st.Close()
	}
	return ix, isNew, err
}

// openAsked opens the index in st, or creates it with want, by the one
// rule of index.OpenAsked: flags given (the fields in given) must agree
// with an existing index, the others take its values. Its errors are said
// in the words of the command line: a conflict names the flag and both
// values, a value out of range is a usage error. keepFlag is the
// command's flag for KeepTexts: "keep-texts", or "no-texts" (the
// opposite). The caller closes st on an error.
func openAsked(ctx context.Context, st index.Store, where string, want index.Meta, given []string, keepFlag string, o index.Options) (*index.Index, bool, error) {
	ix, isNew, err := index.OpenAsked(ctx, st, want, given, o)
	var ce *index.ConflictError
	switch {
	case err == nil:
		return ix, isNew, nil
	case errors.As(err, &ce):
		name, stored, asked := cliflags.FlagOf(ce.Field), ce.Stored, ce.Asked
		switch ce.Field {
		case "KeepTexts":
			name = keepFlag
			if keepFlag == "no-texts" {
				stored, asked = strconv.FormatBool(stored != "true"), strconv.FormatBool(asked != "true")
			}
		case "Shingle.NFKC":
			stored, asked = nfkcFlag(stored), nfkcFlag(asked)
		}
		return nil, false, fmt.Errorf("the index in %s was made with --%s=%s; --%s=%s differs from it (leave the flag out to use the index's)",
			where, name, stored, name, asked)
	case errors.Is(err, neardup.ErrOptions):
		return nil, false, fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
	}
	return nil, false, fmt.Errorf("%s: %w", where, err)
}

// nfkcFlag says Shingle.NFKC as --normalize does.
func nfkcFlag(v string) string {
	if v == "true" {
		return "nfkc"
	}
	return "none"
}

const indexCreateUsage = `Usage: neardup index create --index DIR [flags]

Makes an empty index in DIR with the given shingling, MinHash and LSH
parameters (the same flags and defaults as dedup). They are stored with the
index: every later command uses them, and refuses other ones.

Flags:
`

func runIndexCreate(ctx context.Context, e *env, args []string) error {
	var f indexFlags
	var cf createFlags
	fs := newFlagSet(e, "index create", indexCreateUsage)
	f.register(fs)
	cf.register(fs)
	if _, err := parseArgs(fs, args, 0, ""); err != nil {
		return err
	}
	m, err := cf.meta(fs)
	if err != nil {
		return err
	}
	st, name, err := f.store(ctx, openCreate)
	if err != nil {
		return err
	}
	ix, err := index.Create(ctx, st, m, index.Options{})
	if err != nil {
		st.Close()
		if errors.Is(err, neardup.ErrOptions) {
			return fmt.Errorf("%w: %s", errUsage, cliflags.ErrText(err))
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(e.stderr, "index %s: created: %v\n", name, ix.Params())
	return ix.Close()
}

const indexBuildUsage = `Usage: neardup index build --index DIR [flags] INPUT...

Bulk-loads a corpus into the index (made with the given parameters when DIR
holds none): every document with shingles is added, without looking for
near-duplicates, many per transaction. Inputs are read as by dedup. An id
already in the index is an error unless --skip-existing.

Flags:
`

func runIndexBuild(ctx context.Context, e *env, args []string) error {
	var f indexFlags
	var cf createFlags
	var in cliflags.Input
	var skip, quiet bool
	var workers int
	var cpuProfile string
	fs := newFlagSet(e, "index build", indexBuildUsage)
	f.register(fs)
	in.RegisterInput(fs)
	cf.register(fs)
	fs.BoolVar(&skip, "skip-existing", false, "leave out documents whose id is already in the index (counted)")
	fs.IntVar(&workers, "workers", 0, "goroutines that shingle and sign (default: the number of CPUs)")
	fs.BoolVar(&quiet, "quiet", false, "no summary or progress on standard error")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile (for go tool pprof)")
	inputs, err := parseArgs(fs, args, 1, "no input given")
	if err != nil {
		return err
	}
	co, _, err := in.Options()
	if err != nil {
		return err
	}
	stopProf, err := startProfiles(cpuProfile, "")
	if err != nil {
		return err
	}
	defer stopProf()
	if workers < 0 {
		return fmt.Errorf("%w: --workers %d: want 0 (one per CPU) or more", errUsage, workers)
	}
	ix, _, err := f.openOrCreate(ctx, &cf, fs)
	if err != nil {
		return err
	}
	defer ix.Close()
	start := time.Now()
	src := &source{}
	defer src.cleanup()
	pr := &progress{src: src}
	pr.set("reading", 0)
	stop := startProgress(e, quiet, pr)
	defer stop()

	next, readErr := pullDocs(ctx, e, src, inputs, co)
	st, err := ix.Build(ctx, next, index.BuildOptions{Workers: workers, SkipExisting: skip})
	if rerr := readErr(); err != nil {
		if rerr != nil && errors.Is(err, rerr) {
			return rerr
		}
		return err
	}
	stop()
	if !quiet {
		total, _ := ix.Stats(ctx)
		fmt.Fprintf(e.stderr, "index %s: %s read, %d added (%s), %d without shingles, %s already indexed%s; %s in all; %s\n",
			f.dir, plural(st.Read, "document", "documents"), st.Added, plural(st.NewGroups, "new distinct text", "new distinct texts"), st.Empty,
			plural(st.Existing, "id", "ids"), skippedNote(src), plural(total.Documents, "document", "documents"), dur(time.Since(start)))
	}
	return ix.Close()
}

// pullDocs reads the inputs on a goroutine of its own, for a consumer
// that pulls documents (Index.Build): next returns them one per call, in
// order (the text its own copy), then io.EOF, or the reader's error.
// readErr stops the reading, waits for the reader to finish and returns
// its error; call it once, after the last next.
func pullDocs(ctx context.Context, e *env, src *source, inputs []string, co corpus.Options) (next func() (string, []byte, error), readErr func() error) {
	type doc struct {
		id   string
		text []byte
	}
	docs := make(chan doc, 1024)
	rctx, cancel := context.WithCancel(ctx)
	var err error
	go func() {
		defer close(docs)
		err = readDocs(rctx, e, src, inputs, co, false, func(id string, text []byte) error {
			select {
			case docs <- doc{id, append([]byte(nil), text...)}:
				return nil
			case <-rctx.Done():
				return rctx.Err()
			}
		})
	}()
	next = func() (string, []byte, error) {
		d, ok := <-docs
		if !ok {
			if err != nil {
				return "", nil, err
			}
			return "", nil, io.EOF
		}
		return d.id, d.text, nil
	}
	readErr = func() error {
		cancel()
		for range docs { // let the reader finish
		}
		return err
	}
	return next, readErr
}

func skippedNote(src *source) string {
	if src.skipped == 0 {
		return ""
	}
	return fmt.Sprintf(", %s skipped", plural(src.skipped, "bad record", "bad records"))
}

const indexAddUsage = `Usage: neardup index add --index DIR [flags] INPUT...

Inserts every document of the inputs (read as by dedup), in order, each
checked against the index as it stands, earlier documents of the inputs
included: its near-duplicates already there are listed, one line per match:
id, indexed id, exact Jaccard. An id already in the index is reported and
skipped unless --replace.

Flags:
`

func runIndexAdd(ctx context.Context, e *env, args []string) error {
	return indexAddOrQuery(ctx, e, args, true)
}

const indexQueryUsage = `Usage: neardup index query --index DIR [flags] INPUT...

Lists, for each document of the inputs (read as by dedup), its
near-duplicates in the index: one line per match, id, indexed id, exact
Jaccard, most similar first. Nothing is inserted, unless --add: then each
document with no near-duplicate is inserted, in order, so that later
documents are checked against it too: incremental dedup of a new batch
against everything seen.

Flags:
`

func runIndexQuery(ctx context.Context, e *env, args []string) error {
	return indexAddOrQuery(ctx, e, args, false)
}

// idleFlush is how long index add and query wait for the next document
// before they answer what they have read (see indexAddOrQuery).
const idleFlush = 100 * time.Millisecond

// addQueryFlags are the flags of index add and index query.
type addQueryFlags struct {
	indexFlags
	in                    cliflags.Input
	out                   string
	threshold             float64
	limit, batch, workers int
	add, replace, quiet   bool
}

func (f *addQueryFlags) register(fs *flag.FlagSet, insert bool) {
	f.indexFlags.register(fs)
	f.in.RegisterInput(fs)
	fs.StringVar(&f.out, "output", "-", "write the matches to FILE (\"-\": standard output)")
	fs.IntVar(&f.limit, "limit", 0, "at most N matches per document (0: all)")
	fs.IntVar(&f.batch, "batch", 512, "documents per transaction (one durable commit each)")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary or progress on standard error")
	if insert {
		fs.BoolVar(&f.replace, "replace", false, "replace documents whose id is already in the index")
		return
	}
	fs.Float64Var(&f.threshold, "threshold", 0, "report matches at or above this Jaccard (default and least: the index's threshold)")
	fs.BoolVar(&f.add, "add", false, "insert the documents that have no near-duplicate in the index")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for queries without --add (default: the number of CPUs)")
}

// check refuses values out of range; the index checks --threshold
// (CheckThreshold).
func (f *addQueryFlags) check() error {
	switch {
	case f.limit < 0:
		return fmt.Errorf("%w: --limit %d: want 0 (all) or more", errUsage, f.limit)
	case f.batch < 1:
		return fmt.Errorf("%w: --batch %d: want 1 or more", errUsage, f.batch)
	case f.workers < 0:
		return fmt.Errorf("%w: --workers %d: want 0 (one per CPU) or more", errUsage, f.workers)
	}
	return nil
}

// indexAddOrQuery is index add (insert) and index query (check, or with
// --add insert the unique ones).
func indexAddOrQuery(ctx context.Context, e *env, args []string, insert bool) error {
	var f addQueryFlags
	name, usage := "index query", indexQueryUsage
	if insert {
		name, usage = "index add", indexAddUsage
	}
	fs := newFlagSet(e, name, usage)
	f.register(fs, insert)
	inputs, err := parseArgs(fs, args, 1, "no input given")
	if err != nil {
		return err
	}
	co, _, err := f.in.Options()
	if err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	ix, err := f.open(ctx, insert || f.add)
	if err != nil {
		return err
	}
	defer ix.Close()
	if err := ix.CheckThreshold(f.threshold); err != nil {
		return thresholdError(err)
	}
	po, err := openOutput(ctx, e, f.out)
	if err != nil {
		return err
	}
	defer po.discard()
	start := time.Now()
	src := &source{}
	defer src.cleanup()
	pr := &progress{src: src}
	pr.set("reading", 0)
	stop := startProgress(e, f.quiet, pr)
	defer stop()
	r := &addQuery{f: &f, ix: ix, po: po, insert: insert}
	if err := r.run(ctx, e, src, inputs, co); err != nil {
		return err
	}
	if err := po.finish(ctx); err != nil {
		return err
	}
	stop()
	if !f.quiet {
		r.summary(e, name, src, time.Since(start))
	}
	return nil
}

// addQuery is one run of index add or query: the documents read and not
// yet answered, and the counts.
type addQuery struct {
	f      *addQueryFlags
	ix     *index.Index
	po     *pending
	insert bool // index add (else query; with --add it inserts too)
	items  []index.AddItem
	texts  [][]byte
	buf    []byte
	st     struct {
		read, matched, matches, added, existing, empty int
		firstExisting                                  string
	}
}

// run reads the inputs and answers their documents in batches of
// --batch. When the input pauses (a pipe fed as documents arrive), what
// has been read is answered, and the answers written out, after idleFlush
// without a new document: a timer reset at each document, which a file or
// a fast pipe never lets fire. mu orders the timer's flushes with the
// reader's.
func (r *addQuery) run(ctx context.Context, e *env, src *source, inputs []string, co corpus.Options) error {
	var mu sync.Mutex
	var idleErr error
	finished := false
	idle := time.AfterFunc(time.Hour, func() {
		mu.Lock()
		defer mu.Unlock()
		if finished || idleErr != nil {
			return
		}
		if idleErr = r.flush(ctx); idleErr == nil {
			if err := r.po.w.Flush(); err != nil {
				idleErr = writeErr(r.po.name, err)
			}
		}
	})
	idle.Stop()
	err := readDocs(ctx, e, src, inputs, co, false, func(id string, text []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if idleErr != nil {
			return idleErr
		}
		r.st.read++
		r.items = append(r.items, index.AddItem{ID: id, Text: append([]byte(nil), text...)})
		idle.Reset(idleFlush)
		if len(r.items) < r.f.batch {
			return nil
		}
		return r.flush(ctx)
	})
	idle.Stop()
	mu.Lock()
	defer mu.Unlock()
	finished = true
	if err == nil {
		err = idleErr
	}
	if err == nil {
		err = r.flush(ctx)
	}
	return err
}

// flush answers the documents read since the last flush.
func (r *addQuery) flush(ctx context.Context) error {
	if len(r.items) == 0 {
		return nil
	}
	defer func() { r.items = r.items[:0] }()
	if r.insert || r.f.add {
		return r.flushAdd(ctx)
	}
	return r.flushQuery(ctx)
}

// flushAdd inserts the documents read (with --add, those with no
// near-duplicate) and writes their matches.
func (r *addQuery) flushAdd(ctx context.Context) error {
	res, err := r.ix.AddBatch(ctx, r.items, index.AddOptions{Replace: r.f.replace, IfUnique: r.f.add, Limit: r.f.limit})
	if err != nil {
		return err
	}
	for i, a := range res {
		switch {
		case errors.Is(a.Err, index.ErrNoShingles):
			r.st.empty++
		case errors.Is(a.Err, index.ErrExists):
			r.st.existing++
			if r.st.firstExisting == "" {
				r.st.firstExisting = r.items[i].ID
			}
		case a.Err != nil:
			return fmt.Errorf("%s: %w", r.items[i].ID, a.Err)
		}
		if a.Added {
			r.st.added++
		}
		if err := r.emit(r.items[i].ID, a.Duplicates); err != nil {
			return err
		}
	}
	return nil
}

// flushQuery queries the documents read, in parallel (the index is only
// read), and writes their matches in input order.
func (r *addQuery) flushQuery(ctx context.Context) error {
	r.texts = r.texts[:0]
	for _, it := range r.items {
		r.texts = append(r.texts, it.Text)
	}
	res, errs := r.ix.QueryBatch(ctx, r.texts, index.QueryOptions{Threshold: r.f.threshold, Limit: r.f.limit}, r.f.workers)
	for i, it := range r.items {
		switch {
		case errors.Is(errs[i], index.ErrNoShingles):
			r.st.empty++
		case errs[i] != nil:
			return fmt.Errorf("%s: %w", it.ID, errs[i])
		}
		if err := r.emit(it.ID, res[i]); err != nil {
			return err
		}
	}
	return nil
}

// emit writes a document's matches, one line each.
func (r *addQuery) emit(id string, ms []index.Match) error {
	if len(ms) > 0 {
		r.st.matched++
	}
	for _, m := range ms {
		r.st.matches++
		r.buf = append(dedupout.AppendPair(r.buf[:0], id, m.ID, m.Jaccard), '\n')
		if _, err := r.po.w.Write(r.buf); err != nil {
			return fmt.Errorf("write %s: %w", r.po.name, err)
		}
	}
	return nil
}

// summary prints the counts of the run on standard error.
func (r *addQuery) summary(e *env, name string, src *source, took time.Duration) {
	st := &r.st
	fmt.Fprintf(e.stderr, "%s %s: %s read, %d with near-duplicates in the index (%s)", name, r.f.dir, plural(st.read, "document", "documents"), st.matched, plural(st.matches, "match", "matches"))
	if r.insert || r.f.add {
		fmt.Fprintf(e.stderr, ", %d added", st.added)
	}
	if st.existing > 0 {
		hint := ""
		if r.insert {
			hint = "; --replace replaces"
		}
		fmt.Fprintf(e.stderr, ", %d not added: id already indexed (e.g. %q%s)", st.existing, st.firstExisting, hint)
	}
	if st.empty > 0 {
		fmt.Fprintf(e.stderr, ", %d without shingles", st.empty)
	}
	fmt.Fprintf(e.stderr, "%s; %s\n", skippedNote(src), dur(took))
}

const indexRemoveUsage = `Usage: neardup index remove --index DIR [flags] ID...

Deletes the documents with the given ids (or those listed one per line in
--ids FILE, "-" for standard input). An unknown id is reported; the exit
status is then 1, but the other ids are still removed.

Flags:
`

func runIndexRemove(ctx context.Context, e *env, args []string) error {
	var f indexFlags
	var idsFile string
	fs := newFlagSet(e, "index remove", indexRemoveUsage)
	f.register(fs)
	fs.StringVar(&idsFile, "ids", "", "read the ids from FILE, one per line (\"-\": standard input)")
	ids, err := parseArgs(fs, args, 0, "")
	if err != nil {
		return err
	}
	if idsFile != "" {
		var r io.Reader = e.stdin
		if idsFile != "-" {
			fh, err := os.Open(idsFile)
			if err != nil {
				return err
			}
			defer fh.Close()
			r = fh
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			if id := strings.TrimRight(sc.Text(), "\r"); id != "" {
				ids = append(ids, id)
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", idsFile, err)
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("%w: no id given", errUsage)
	}
	ix, err := f.open(ctx, true)
	if err != nil {
		return err
	}
	defer ix.Close()
	removed, missing := 0, 0
	for _, id := range ids {
		switch err := ix.Remove(ctx, id); {
		case err == nil:
			removed++
		case errors.Is(err, index.ErrNotFound):
			missing++
			fmt.Fprintf(e.stderr, "index remove: %q is not in the index\n", id)
		default:
			return err
		}
	}
	fmt.Fprintf(e.stderr, "index remove %s: %d removed, %d not found\n", f.dir, removed, missing)
	if missing > 0 {
		return errSilent
	}
	return ix.Close()
}

const indexStatsUsage = `Usage: neardup index stats --index DIR [flags]

Prints the index's parameters and counts; --check also verifies that the
index agrees with itself, as index check does, exit status 1 if not. The
index is opened read-only: nothing in DIR is written.

Flags:
`

func runIndexStats(ctx context.Context, e *env, args []string) error {
	var f indexFlags
	var check, jsonOut bool
	fs := newFlagSet(e, "index stats", indexStatsUsage)
	f.register(fs)
	fs.BoolVar(&check, "check", false, "verify the whole index (reads all of it)")
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	if _, err := parseArgs(fs, args, 0, ""); err != nil {
		return err
	}
	t0 := time.Now()
	ix, err := f.open(ctx, false)
	if err != nil {
		return err
	}
	defer ix.Close()
	openSeconds := time.Since(t0).Seconds()
	s, err := ix.Stats(ctx)
	if err != nil {
		return err
	}
	p := ix.Params()
	rep := map[string]any{
		"index": f.dir, "documents": s.Documents, "distinct_texts": s.Groups,
		"shingle": p.Shingle.Mode.String(), "ngram": p.Shingle.N, "bag": p.Shingle.Bag, "num_perm": p.Slots, "seed": p.Seed,
		"threshold": p.Threshold, "bands": p.LSH.Bands, "rows": p.LSH.Rows, "keep_texts": ix.Meta().KeepTexts,
		"open_seconds": openSeconds,
	}
	if ps, ok := ix.Store().(*index.PebbleStore); ok {
		rep["resident_bytes"] = ps.ResidentBytes()
	}
	var checkErr error
	if check {
		t0 := time.Now()
		r, err := ix.Check(ctx)
		rep["check_seconds"] = time.Since(t0).Seconds()
		if err != nil {
			if !errors.Is(err, index.ErrInconsistent) && !errors.Is(err, neardup.ErrCorrupt) {
				return err
			}
			checkErr = err
			rep["check"] = err.Error()
		} else {
			rep["check"] = "ok"
			rep["bucket_entries"] = r.BucketEntries
		}
	}
	if jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "index %s: %s, %s; %v", f.dir, plural(s.Documents, "document", "documents"), plural(s.Groups, "distinct text", "distinct texts"), p)
		if ix.Meta().KeepTexts {
			fmt.Fprint(e.stdout, "; texts kept")
		}
		fmt.Fprintln(e.stdout)
		if b, ok := rep["resident_bytes"].(int64); ok {
			per := 0.0
			if s.Groups > 0 {
				per = float64(b) / float64(s.Documents)
			}
			fmt.Fprintf(e.stdout, "resident (band tables, set sizes, signature digests): %s (%.0f bytes per document); opened in %.2fs\n", humanBytes(b), per, openSeconds)
		}
		if check {
			fmt.Fprintf(e.stdout, "check: %v (%.2fs)\n", rep["check"], rep["check_seconds"])
		}
	}
	if checkErr != nil {
		return errSilent
	}
	return ix.Close()
}

const indexCheckUsage = `Usage: neardup index check --index DIR [flags]

Reads every record of the index, texts included, and verifies that it
agrees with itself: every stored signature and band key recomputed from
its set, every text shingled again and compared with its group's set,
band tables, ids, memberships, counts; and, when it is opened, that no
write it acknowledged is missing (its write-ahead logs and MANIFEST read
whole, its counts against the state it recorded at its last close). Exit
status 1, naming the first problem, if not: then neardup index repair
copies what can be read to a new index. The index is opened read-only.

Flags:
`

func runIndexCheck(ctx context.Context, e *env, args []string) error {
	var f indexFlags
	var jsonOut bool
	fs := newFlagSet(e, "index check", indexCheckUsage)
	f.register(fs)
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	if _, err := parseArgs(fs, args, 0, ""); err != nil {
		return err
	}
	a := []string{"--index", f.dir, "--check"}
	if jsonOut {
		a = append(a, "--json")
	}
	return runIndexStats(ctx, e, a)
}

const indexRepairUsage = `Usage: neardup index repair --index DIR --out NEWDIR [flags]

Copies what can be read of a damaged index in DIR to a new index in NEWDIR
(missing or empty), and says exactly what could not be copied: documents
whose records fail their checksums or sit in missing files, the writes
after the damage in a write-ahead log (with their ids), the documents the
index had acknowledged but whose records are gone. DIR is opened
read-only, as Pebble can read it (its newest MANIFEST when the manifest
marker is missing; a log up to its damage), and nothing in it changes.
Documents keep their ids, sequence numbers, insertion times and texts; an
index that keeps texts is rebuilt from them. The new index is checked
before the command ends; moving it into DIR's place is yours.

Flags:
`

func runIndexRepair(ctx context.Context, e *env, args []string) error {
	var f indexFlags
	var out string
	var jsonOut bool
	fs := newFlagSet(e, "index repair", indexRepairUsage)
	f.register(fs)
	fs.StringVar(&out, "out", "", "the directory of the new index (required; missing or empty)")
	fs.BoolVar(&jsonOut, "json", false, "print the report as JSON")
	if _, err := parseArgs(fs, args, 0, ""); err != nil {
		return err
	}
	switch {
	case f.dir == "":
		return fmt.Errorf("%w: --index DIR is required", errUsage)
	case out == "":
		return fmt.Errorf("%w: --out NEWDIR is required (repair never writes into the damaged index)", errUsage)
	}
	t0 := time.Now()
	rep, err := index.Salvage(ctx, f.dir, out, index.PebbleOptions{})
	if err != nil {
		return err
	}
	ix, err := (&indexFlags{dir: out}).open(ctx, false)
	if err != nil {
		return err
	}
	cr, cerr := ix.Check(ctx)
	ix.Close()
	check := "ok"
	if cerr != nil {
		check = cerr.Error()
	}
	if jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Index, Out string
			Report     index.SalvageReport
			Check      string
			Seconds    float64
		}{f.dir, out, rep, check, time.Since(t0).Seconds()}); err != nil {
			return err
		}
	} else {
		printRepair(e.stdout, f.dir, out, rep, cr, check)
	}
	if cerr != nil {
		return fmt.Errorf("the new index %s does not check out: %w", out, cerr)
	}
	return nil
}

// printRepair writes the report of index repair.
func printRepair(w io.Writer, dir, out string, rep index.SalvageReport, cr index.CheckReport, check string) {
	fmt.Fprintf(w, "index repair %s -> %s: %s copied, %s", dir, out, plural(rep.Documents, "document", "documents"), plural(rep.Groups, "distinct text", "distinct texts"))
	if rep.Rebuilt > 0 {
		fmt.Fprintf(w, " (%d made again from their texts)", rep.Rebuilt)
	}
	fmt.Fprintln(w)
	lost := false
	for _, l := range rep.Logs {
		lost = true
		if l.Transactions == 0 && len(l.Added) == 0 {
			fmt.Fprintf(w, "lost: %s is damaged at offset %d: what it recorded after that point is not in the copy\n", l.File, l.Offset)
			continue
		}
		fmt.Fprintf(w, "lost: write-ahead log %s is damaged at offset %d: the transaction that held the damage and the %d after it (%s added, %d removed) are not in the copy\n",
			l.File, l.Offset, l.Transactions, plural(len(l.Added), "document", "documents"), len(l.Removed))
		if len(l.Added) > 0 {
			fmt.Fprintf(w, "  ids added after the damage: %s\n", someIDs(l.Added))
		}
		if len(l.Removed) > 0 {
			fmt.Fprintf(w, "  ids removed after the damage (present again in the copy if their records were read): %s\n", someIDs(l.Removed))
		}
	}
	if rep.Witnessed > rep.Recorded && rep.Recorded > 0 {
		lost = true
		fmt.Fprintf(w, "lost: sequence numbers %d to %d (%s at most) were acknowledged (the index's witness file) but have no record\n",
			rep.Recorded, rep.Witnessed-1, plural(rep.Witnessed-rep.Recorded, "document", "documents"))
	}
	if gone := rep.Counted - rep.Documents - int64(len(rep.Unreadable)+len(rep.UnreadableIDs)); rep.Counted >= 0 && gone > 0 {
		lost = true
		fmt.Fprintf(w, "lost: %s that the index counted (its counters) %s no record: %s gone\n", plural(gone, "document", "documents"), pick(gone, "has", "have"), pick(gone, "its tables are", "their tables are"))
	}
	if n := len(rep.Unreadable); n > 0 {
		lost = true
		seqs := make([]string, 0, min(n, 10))
		for _, s := range rep.Unreadable[:min(n, 10)] {
			seqs = append(seqs, fmt.Sprint(s))
		}
		more := ""
		if n > 10 {
			more = ", ..."
		}
		fmt.Fprintf(w, "lost: %s whose %s could not be read (sequence %s %s%s)\n", plural(n, "document", "documents"), pick(n, "record", "records"), pick(n, "number", "numbers"), strings.Join(seqs, ", "), more)
	}
	if n := len(rep.UnreadableIDs); n > 0 {
		lost = true
		fmt.Fprintf(w, "lost: %s whose text or set could not be read: %s\n", plural(n, "document", "documents"), someIDs(rep.UnreadableIDs))
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if !lost {
		fmt.Fprintln(w, "nothing lost that the index's files tell of")
	}
	fmt.Fprintf(w, "check of %s: %s (%s, %s shingled again)\n", out, check, plural(cr.Documents, "document", "documents"), plural(cr.Texts, "text", "texts"))
	fmt.Fprintf(w, "next: move %s aside and %s into its place\n", dir, out)
}

// someIDs lists up to ten ids.
func someIDs(ids []string) string {
	q := make([]string, 0, min(len(ids), 10))
	for _, id := range ids[:min(len(ids), 10)] {
		q = append(q, strconv.Quote(id))
	}
	if len(ids) > 10 {
		q = append(q, fmt.Sprintf("... %d in all", len(ids)))
	}
	return strings.Join(q, ", ")
}

// thresholdError says an error of Index.CheckThreshold as the usage error
// of --threshold: the index decides, the command names the flag.
func thresholdError(err error) error {
	switch {
	case errors.Is(err, index.ErrThreshold):
		return fmt.Errorf("%w: --threshold %s", errUsage, strings.TrimPrefix(err.Error(), index.ErrThreshold.Error()+": "))
	case errors.Is(err, neardup.ErrInvalid):
		return fmt.Errorf("%w: --%s", errUsage, strings.TrimPrefix(err.Error(), neardup.ErrInvalid.Error()+": "))
	}
	return err
}
