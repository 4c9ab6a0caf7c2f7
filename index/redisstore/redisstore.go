// Package redisstore is an index.Store in Redis, so that several processes
// (several `neardup serve`) answer from one shared index with the same
// check-and-insert guarantee as one process: two concurrent Adds of one
// text, from any processes, cannot both come back without duplicates.
//
// Who uses it from outside: `neardup serve --store redis://...`; a
// library user takes it (Open, then index.OpenOrCreate) for an in-process
// index that several processes share.
//
// The engine (Add, Query, Build, Check) stays in package index; this
// package only keeps the records and runs transactions. It needs a
// standalone Redis server (or a primary with replicas) of version 6.2 or
// later; Redis Cluster is not supported (a transaction touches keys in
// many slots).
//
// # Data layout
//
// Every key starts with Options.Prefix (default "neardup:"), written P
// here; numbers are decimal:
//
//	P meta            string: the index Meta (index.AppendMeta)
//	P ids             hash: fields "seq" and "group", the last sequence
//	                  number and group id handed out (HINCRBY)
//	P g:GID           string: a group (index.AppendGroup)
//	P m:GID           set: the Seq of the group's documents
//	P b:BAND:KEY      set: the group ids whose band key in band BAND is
//	                  KEY (16 hex digits): one bucket of a band table
//	P d:SEQ           string: a document (index.AppendDoc)
//	P i:ID            string: the Seq of the document with the caller's ID
//	P G               sorted set: every group id (score = id)
//	P D               sorted set: every Seq (score = Seq)
//	P entries         string: the number of (band, group) entries in the
//	                  buckets, changed by the script that adds and removes them
//	P version         string: incremented by every Update that writes
//
// The buckets dominate: about 5 KB of Redis memory per document at the
// default 35 bands (measured: 10,000 generated documents, 9,231 distinct
// texts, 328,000 keys; texts kept add their length).
//
// Counts are the cardinalities of G and D, so they are exact; EachGroup
// and EachDoc page through G and D in ascending order. Sequence numbers
// and group ids are unique and increasing in the order they are handed
// out; a transaction that is run again leaves gaps, and ids are not in
// commit order across processes. A key is read and written only by its
// index: no prefix may be a prefix of another index's (with "a:" and
// "a:i:", the second's meta would be the first's id "meta").
//
// # Transactions
//
// Update is optimistic (WATCH, MULTI, EXEC): each read of an Update
// first WATCHes the key it reads (in the same round trip), writes are
// queued in the client and sent at the end in one MULTI/EXEC, and EXEC
// fails if any key read was changed meanwhile by anyone, in which case fn
// runs again from the start after a short random wait. The meta key is
// watched and checked first, so an index deleted meanwhile is ErrNoIndex,
// not a write of orphan records. After Options.MaxAttempts failed
// attempts Update returns an error wrapping index.ErrConflict. Because
// every key read is watched, a committed Update read what was in Redis at
// the moment of its EXEC: Updates are serialisable, and unrelated Adds
// from several processes commit side by side. A transaction that reads
// more than Options.MaxWatch keys watches the version key for the rest
// (Redis makes each WATCH cost in proportion to the keys the connection
// already watches), and so conflicts with any writer that commits during
// it. Sequence numbers and group ids come from HINCRBY outside the
// transaction (never watched), so they never cause a conflict. View reads
// without WATCH: it is not a snapshot across keys, and a record removed
// between two reads is index.ErrNotFound, which package index tolerates.
//
// # Durability
//
// See Store.Update: what survives a crash is what the Redis server's
// persistence configuration keeps, unless Options.WaitAOF asks Redis to
// confirm an fsync before Update returns.
//
// # Outages
//
// Every round trip to Redis (a pipeline of reads with its WATCH, an
// HINCRBY, the MULTI/EXEC of a transaction, the meta read, Open's PING)
// has Options.Timeout (default 2 s) to complete, the wait for a pooled
// connection and the dial of a new one included. An operation of package
// index makes several round trips, one after the other; the first that
// fails ends it, so an outage is reported within Timeout of its start
// (at once when the server refuses connections), never after the length
// of the outage.
//
// When the server cannot be reached or does not answer in time (stopped,
// killed, paused, restarting and loading its data, unreachable, or too
// slow), the error wraps index.ErrUnavailable and names the server:
//
//	redisstore: redis://127.0.0.1:6379/0: get: dial tcp 127.0.0.1:6379: connect: connection refused: index: store unavailable
//	redisstore: redis://127.0.0.1:6379/0: watch: no answer within 2s: index: store unavailable
//
// which package server answers 503 unavailable with Retry-After. Errors
// that count: refused, reset or closed connections, network errors and
// timeouts (a round trip's own deadline, go-redis's pool timeout), and
// the replies LOADING, BUSY, MASTERDOWN, NOREPLICAS and "max number of
// clients reached". Other replies of the server (WRONGTYPE, OOM, ...)
// are faults, returned as they are. The caller's own cancellation or
// deadline is returned as its context's error (context.Canceled or
// context.DeadlineExceeded, wrapped), never as index.ErrUnavailable; a
// cancellation without deadline is seen when the round trip under way
// ends (within Timeout), a deadline when it passes.
//
// An Update that returns index.ErrUnavailable may or may not have been
// applied: its EXEC may have reached the server, which runs it when it
// comes back (a paused server), or ran it before it went away. Retrying
// an Add is safe: the id is checked again (index.ErrExists when it was
// applied). Under Options.WaitAOF or WaitReplicas, an outage after EXEC
// is ErrNotDurable and index.ErrUnavailable together.
//
// Nothing is kept of an outage: once the server answers again (restarted
// on the same address, or resumed), the same Store serves as before,
// without a restart of the process. go-redis drops the connections that
// failed and dials new ones; after many failed dials in a row it dials
// again only once a second, so service resumes within about a second of
// the server's return. What the index holds then is what the server's
// persistence kept (see Durability): after a restart without persistence
// the index is gone and every operation is index.ErrNoIndex.
package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// ErrNotDurable is wrapped by the error of an Update whose transaction
// committed (other clients may already see it) but whose durability Redis
// did not confirm as Options.WaitReplicas or Options.WaitAOF ask, within
// Options.WaitTimeout. The change may survive or be lost.
var ErrNotDurable = errors.New("redisstore: durability not confirmed")

// Options configure Open.
type Options struct {
	// Prefix starts every key of the index, so that several indexes share
	// one Redis database; "" means "neardup:". No index's prefix may be a
	// prefix of another's.
	Prefix string
	// MaxAttempts bounds the runs of one Update's transaction (conflicts
	// with other writers); 0 means 32. Between attempts Update waits a
	// random time below 0.5 ms doubled per attempt, at most 32 ms.
	MaxAttempts int
	// MaxWatch bounds the keys one attempt of an Update watches one by
	// one; 0 means 1024. Past it, the transaction watches instead a
	// version key that every writing transaction increments, so that it
	// conflicts with any transaction committed meanwhile. The bound is
	// there because Redis (7.0) looks through a connection's watched keys
	// at each WATCH: 1,000 keys cost the server about 7 ms, 10,000 about
	// 0.4 s and 40,000 about 8 s (measured), during which it serves no
	// one. An Add reads (and watches) about Bands + 10 keys; an AddBatch
	// or a Build transaction of many documents passes the bound, and then
	// runs again whenever any other writer commits during it, which under
	// a steady load of writes may use up MaxAttempts (ErrConflict):
	// smaller batches help.
	MaxWatch int
	// WaitReplicas, when positive, makes Update wait after EXEC until that
	// many replicas have acknowledged the transaction (Redis WAIT), or,
	// with WaitAOF, have written it to their append-only files and fsynced
	// them (WAITAOF).
	WaitReplicas int
	// WaitAOF makes Update wait after EXEC until the server has fsynced
	// the transaction to its append-only file (WAITAOF 1, Redis 7.2 or
	// later, with appendonly yes; Open checks both).
	WaitAOF bool
	// WaitTimeout bounds each wait of WaitReplicas and WaitAOF; 0 means
	// 2 s. A wait that runs out is ErrNotDurable.
	WaitTimeout time.Duration
	// Timeout bounds each round trip to Redis, from the wait for a
	// connection of the pool (or the dial of a new one) to the end of
	// the reply; 0 means 2 s. A round trip that runs out, like one that
	// cannot reach the server, fails with an error wrapping
	// index.ErrUnavailable (see "Outages" in the package comment). The
	// wait of WaitReplicas and WaitAOF has Timeout beyond WaitTimeout. It
	// replaces the dial_timeout, read_timeout, write_timeout and
	// pool_timeout of the URL. It should stay well above the time Redis
	// takes to answer the largest pipeline (an AddBatch's reads) under
	// load: a round trip cut short is a failed operation.
	Timeout time.Duration
}

// Store is an index.Store in a Redis database, shared by every process
// that opens it with the same URL and Prefix. A Store is safe for
// concurrent use: it holds a pool of connections (go-redis's), each
// Update and View using one connection at a time.
type Store struct {
	rdb   *redis.Client
	o     Options
	where string // the server and database, for messages (no credentials)

	meta   atomic.Pointer[index.Meta]
	closed atomic.Bool

	updates, retries atomic.Int64
}

// Open connects to the Redis database of url (redis://[USER:PASSWORD@]
// HOST:PORT/DB, or rediss:// for TLS, as go-redis's ParseURL reads it) and
// checks that it answers (PING), within ctx. The store may hold no index
// yet (index.Create or OpenOrCreate makes one). Errors wrap
// neardup.ErrOptions for a bad URL or options.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w: %v", neardup.ErrOptions, err)
	}
	if o.Prefix == "" {
		o.Prefix = "neardup:"
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 32
	}
	if o.MaxWatch == 0 {
		o.MaxWatch = 1024
	}
	if o.WaitTimeout == 0 {
		o.WaitTimeout = 2 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.MaxAttempts < 1 || o.MaxWatch < 1 || o.WaitReplicas < 0 || o.WaitTimeout < time.Millisecond || o.Timeout < time.Millisecond {
		return nil, fmt.Errorf("redisstore: %w: MaxAttempts %d, MaxWatch %d, WaitReplicas %d, WaitTimeout %v, Timeout %v", neardup.ErrOptions, o.MaxAttempts, o.MaxWatch, o.WaitReplicas, o.WaitTimeout, o.Timeout)
	}
	// No CLIENT SETINFO at connect: servers before 7.2 do not know it.
	opt.DisableIdentity = true
	// Every round trip runs under a context deadline (Store.roundTrip),
	// which go-redis applies to the socket only with ContextTimeoutEnabled;
	// the socket and pool timeouts are the same bound for go-redis's own
	// round trips (the handshake of a new connection). One dial per try:
	// go-redis's retries of a refused dial (5, 100 ms apart) would spend
	// the round trip's time on a server that is down; its retries of the
	// command (MaxRetries) stay, within the deadline.
	opt.ContextTimeoutEnabled = true
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = o.Timeout, o.Timeout, o.Timeout, o.Timeout
	opt.DialerRetries = 1
	s := &Store{rdb: redis.NewClient(opt), o: o, where: fmt.Sprintf("redis://%s/%d", opt.Addr, opt.DB)}
	rctx, cancel := s.roundTrip(ctx, 0)
	err = s.rdb.Ping(rctx).Err()
	cancel()
	if err != nil {
		s.rdb.Close()
		return nil, s.failure(ctx, "open", err)
	}
	if o.WaitAOF {
		// WAITAOF 1 0 returns at once for a client that wrote nothing, or
		// fails when the server lacks it or has no append-only file.
		rctx, cancel := s.roundTrip(ctx, o.WaitTimeout)
		err := s.rdb.WaitAOF(rctx, 1, 0, o.WaitTimeout).Err()
		cancel()
		if err != nil {
			s.rdb.Close()
			if err := s.failure(ctx, "open: WAITAOF", err); errors.Is(err, index.ErrUnavailable) || ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("redisstore: open %s: %w: WaitAOF needs Redis 7.2 or later with appendonly yes: %v", s.where, neardup.ErrOptions, err)
		}
	}
	return s, nil
}

// roundTrip returns the context of one round trip to Redis: ctx with a
// deadline Options.Timeout (plus extra, the time the server may take on
// purpose: WAIT's) from now. The caller must call cancel.
func (s *Store) roundTrip(ctx context.Context, extra time.Duration) (rctx context.Context, cancel context.CancelFunc) {
	return context.WithTimeout(ctx, s.o.Timeout+extra)
}

// failure returns the error of a round trip for op that failed with err,
// ctx being the caller's context (not the round trip's): index.ErrClosed
// after Close; the caller's context error when ctx is done, whatever err
// says (the caller gave up, Redis may be fine); an error wrapping
// index.ErrUnavailable when err means that the server cannot be reached
// or did not answer in time (unavailable); err wrapped otherwise. Every
// message names the server.
func (s *Store) failure(ctx context.Context, op string, err error) error {
	if s.closed.Load() {
		return index.ErrClosed
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(err, cerr) {
			return fmt.Errorf("redisstore: %s: %s: %w", s.where, op, err)
		}
		return fmt.Errorf("redisstore: %s: %s: %w (%v)", s.where, op, cerr, err)
	}
	if unavailable(err) {
		// The cause as text only: a deadline of the round trip's own
		// context must not read as the caller's (errors.Is DeadlineExceeded).
		cause := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			cause = fmt.Sprintf("no answer within %v", s.o.Timeout)
		}
		return fmt.Errorf("redisstore: %s: %s: %s: %w", s.where, op, cause, index.ErrUnavailable)
	}
	return fmt.Errorf("redisstore: %s: %s: %w", s.where, op, err)
}

// unavailableReplies start the replies of a server that cannot serve now
// but may soon: loading its data after a restart, blocked by a script or
// a module, a replica that lost its primary, too few replicas for writes
// (min-replicas-to-write), too many clients.
var unavailableReplies = []string{"LOADING ", "BUSY ", "MASTERDOWN ", "NOREPLICAS ", "max number of clients reached"}

// unavailable reports whether err, the error of a round trip whose
// caller's context is not done, means that the server could not be
// reached or did not answer in time, rather than a fault of the request,
// the data or the server.
func unavailable(err error) bool {
	if err == nil {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := strings.TrimPrefix(re.Error(), "ERR ")
		for _, p := range unavailableReplies {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
		return false // a reply: the server answered
	}
	var ne net.Error // refused, reset, unreachable, i/o timeouts, name resolution
	switch {
	case errors.Is(err, context.DeadlineExceeded), // the round trip's own deadline
		errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrPoolExhausted),
		// A connection pool closed under a Store still open: a
		// transaction's connection lost as the server went away.
		errors.Is(err, redis.ErrClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.ENETDOWN),
		errors.As(err, &ne):
		return true
	}
	// go-redis's errors of a connection dropped after a failure (its
	// BadConnError, whose cause is not always a network error).
	return strings.HasPrefix(err.Error(), "redis: Conn is in a bad state")
}

// key returns the key of kind ("meta", "G", ...) under the prefix.
func (s *Store) key(kind string) string { return s.o.Prefix + kind }

func (s *Store) numKey(kind string, n uint64) string {
	return string(strconv.AppendUint([]byte(s.o.Prefix+kind), n, 10))
}

func (s *Store) groupKey(gid uint64) string   { return s.numKey("g:", gid) }
func (s *Store) membersKey(gid uint64) string { return s.numKey("m:", gid) }
func (s *Store) docKey(seq uint64) string     { return s.numKey("d:", seq) }
func (s *Store) idKey(id string) string       { return s.o.Prefix + "i:" + id }

func (s *Store) bucketKey(band int, key uint64) string {
	b := strconv.AppendInt([]byte(s.o.Prefix+"b:"), int64(band), 10)
	b = append(b, ':')
	var k [8]byte
	for i := range k {
		k[i] = byte(key >> (56 - 8*i))
	}
	return string(hex.AppendEncode(b, k[:]))
}

// Stats count the transactions of a Store.
type Stats struct {
	Updates int64 // Updates run
	Retries int64 // attempts run again after a conflict
}

// Stats returns the store's counts since Open.
func (s *Store) Stats() Stats { return Stats{Updates: s.updates.Load(), Retries: s.retries.Load()} }

// Meta returns the index's meta, or index.ErrNoIndex when the database
// holds none under the prefix. The meta never changes once recorded, so
// it is read from Redis until found, then kept.
func (s *Store) Meta(ctx context.Context) (index.Meta, error) {
	if s.closed.Load() {
		return index.Meta{}, index.ErrClosed
	}
	if m := s.meta.Load(); m != nil {
		return *m, nil
	}
	rctx, cancel := s.roundTrip(ctx, 0)
	v, err := s.rdb.Get(rctx, s.key("meta")).Bytes()
	cancel()
	if errors.Is(err, redis.Nil) {
		return index.Meta{}, index.ErrNoIndex
	}
	if err != nil {
		return index.Meta{}, s.failure(ctx, "read meta", err)
	}
	m, err := index.DecodeMeta(v)
	if err != nil {
		return index.Meta{}, fmt.Errorf("redisstore: %s: %w", s.where, err)
	}
	s.meta.Store(&m)
	return m, nil
}

// Init records m (SET NX); an index already recorded under the prefix,
// by this process or another, is index.ErrExists.
func (s *Store) Init(ctx context.Context, m index.Meta) error {
	if s.closed.Load() {
		return index.ErrClosed
	}
	enc, err := index.AppendMeta(nil, m)
	if err != nil {
		return err
	}
	rctx, cancel := s.roundTrip(ctx, 0)
	ok, err := s.rdb.SetNX(rctx, s.key("meta"), enc, 0).Result()
	cancel()
	if err != nil {
		return s.failure(ctx, "record meta", err)
	}
	if !ok {
		return fmt.Errorf("%w: %s holds an index under prefix %q", index.ErrExists, s.where, s.o.Prefix)
	}
	s.meta.Store(&m)
	return nil
}

// View runs fn with a read-only transaction. Its reads are plain reads,
// each seeing the latest committed state: not a snapshot across keys. A
// record removed between two reads is index.ErrNotFound. Writes in fn
// return an error wrapping neardup.ErrInvalid.
func (s *Store) View(ctx context.Context, fn func(index.Tx) error) error {
	m, err := s.Meta(ctx)
	if err != nil {
		return err
	}
	return fn(&tx{s: s, ctx: ctx, bands: m.Params.LSH.Bands})
}

// Update runs fn as one atomic transaction (see the package comment):
// its writes are applied together in one MULTI/EXEC, or not at all, and
// only if no key fn read changed meanwhile; otherwise fn runs again, at
// most Options.MaxAttempts times in all (then an error wrapping
// index.ErrConflict). fn's own error is returned as it is, with nothing
// written. An error from EXEC itself after it ran (a command failing at
// run time, say because a key under the prefix holds another type) is
// returned, and Redis does not roll back the commands of the transaction
// that succeeded. If the connection fails while EXEC is under way, or
// the server does not answer it within Options.Timeout (an error
// wrapping index.ErrUnavailable), the transaction may or may not have
// been applied.
//
// Durability. When Update returns nil, the transaction is applied in the
// memory of the Redis server and visible to every client. What survives
// a crash is what the server's configuration keeps:
//
//   - appendonly yes, appendfsync always: the server writes and fsyncs
//     the append-only file before it replies to EXEC, so an acknowledged
//     transaction survives a crash of the server process and of the
//     machine (as far as the disk honours fsync).
//   - appendonly yes, appendfsync everysec (the default once the
//     append-only file is on): written to the file (the kernel) before
//     the reply, fsynced about once a second: it survives a crash of the
//     server process; a crash of the machine may lose the last second or
//     two of acknowledged transactions.
//   - appendonly no (Redis's default): only RDB snapshots, if any (save):
//     a crash of the server loses every transaction since the last one;
//     with save "" (as the tests run it) the index lives in memory only.
//   - Replicas are updated asynchronously: a failover may lose
//     acknowledged transactions the new primary had not received.
//
// Options.WaitAOF makes Update return nil only once the server confirms
// the fsync of the transaction to its append-only file (WAITAOF), which
// gives the guarantee of appendfsync always with any appendfsync
// setting. Options.WaitReplicas makes it wait for that many replicas to
// have received the transaction (WAIT; with WaitAOF, to have fsynced
// it), which narrows, but does not close, the failover window: Redis does
// not promise to promote a replica that acknowledged. A wait that falls
// short returns an error wrapping ErrNotDurable after the transaction
// committed.
func (s *Store) Update(ctx context.Context, fn func(index.Tx) error) error {
	m, err := s.Meta(ctx)
	if err != nil {
		return err
	}
	s.updates.Add(1)
	for attempt := 1; ; attempt++ {
		conflict := false
		err := s.rdb.Watch(ctx, func(rtx *redis.Tx) error {
			var err error
			conflict, err = s.attempt(ctx, rtx, m.Params.LSH.Bands, fn)
			return err
		})
		if !conflict {
			if err != nil && s.closed.Load() {
				return index.ErrClosed
			}
			return err
		}
		if attempt >= s.o.MaxAttempts {
			return fmt.Errorf("redisstore: %s: %d attempts lost to other writers: %w", s.where, attempt, index.ErrConflict)
		}
		s.retries.Add(1)
		// A random wait below 0.5 ms << min(attempt-1, 6), at most 32 ms.
		d := time.Duration(rand.Int64N(int64(500*time.Microsecond) << min(attempt-1, 6)))
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// attempt runs fn once on rtx's connection; conflict reports an EXEC that
// failed because a watched key changed (run it again).
func (s *Store) attempt(ctx context.Context, rtx *redis.Tx, bands int, fn func(index.Tx) error) (conflict bool, err error) {
	t := &tx{s: s, ctx: ctx, rtx: rtx, pipe: rtx.TxPipeline(), bands: bands, seen: map[string]struct{}{}}
	execRan := false
	defer func() {
		// EXEC drops the watches; on any other way out, drop them here,
		// even when ctx is done, so that the pooled connection does not
		// keep them (go-redis's Tx.Close does not know of watches sent in
		// a pipeline). Not when no WATCH was answered, nor after an
		// outage (index.ErrUnavailable), when an UNWATCH could only wait
		// for another Timeout: go-redis drops a connection whose round
		// trip failed or timed out, and its watches go with it; after a
		// reply such as LOADING the connection stays in the pool with its
		// watches, which can cost the next transaction on it one
		// conflict (and run again), no more: EXEC clears them.
		if !execRan && t.watching && !errors.Is(err, index.ErrUnavailable) {
			uctx, cancel := s.roundTrip(context.WithoutCancel(ctx), 0)
			rtx.Unwatch(uctx)
			cancel()
		}
	}()
	var exists *redis.IntCmd
	if err := t.watched([]string{s.key("meta")}, func(p redis.Pipeliner) { exists = p.Exists(ctx, s.key("meta")) }); err != nil {
		return false, err
	}
	if exists.Val() == 0 {
		return false, fmt.Errorf("redisstore: %s: %w (removed)", s.where, index.ErrNoIndex)
	}
	if err := fn(t); err != nil {
		return false, err
	}
	if t.pipe.Len() == 0 {
		// Nothing to write: an empty EXEC still checks that what fn read
		// is unchanged, so a read-only Update is serialisable too.
		t.pipe.Exists(ctx, s.key("meta"))
	} else {
		// Every transaction that writes changes the version, which the
		// transactions that read more than MaxWatch keys watch.
		t.pipe.Incr(ctx, s.key("version"))
	}
	rctx, cancel := s.roundTrip(ctx, 0)
	_, err = t.pipe.Exec(rctx)
	cancel()
	switch {
	case errors.Is(err, redis.TxFailedErr):
		execRan = true
		return true, nil
	case err != nil:
		var re redis.Error
		execRan = errors.As(err, &re) // a Redis reply: EXEC ran or was aborted
		return false, s.failure(ctx, "commit", err)
	}
	execRan = true
	return false, s.wait(ctx, rtx)
}

// wait asks Redis to confirm durability as the options say, on the
// connection that ran EXEC.
func (s *Store) wait(ctx context.Context, rtx *redis.Tx) error {
	o := s.o
	rctx, cancel := s.roundTrip(ctx, o.WaitTimeout)
	defer cancel()
	switch {
	case o.WaitAOF:
		r, err := rtx.WaitAOF(rctx, 1, o.WaitReplicas, o.WaitTimeout).Result()
		if err != nil {
			return s.notDurable(ctx, "WAITAOF", err)
		}
		if len(r) != 2 || r[0] < 1 || r[1] < int64(o.WaitReplicas) {
			return fmt.Errorf("redisstore: %s: committed; WAITAOF 1 %d confirmed %v within %v: %w", s.where, o.WaitReplicas, r, o.WaitTimeout, ErrNotDurable)
		}
	case o.WaitReplicas > 0:
		n, err := rtx.Wait(rctx, o.WaitReplicas, o.WaitTimeout).Result()
		if err != nil {
			return s.notDurable(ctx, "WAIT", err)
		}
		if n < int64(o.WaitReplicas) {
			return fmt.Errorf("redisstore: %s: committed; %d of %d replicas acknowledged within %v: %w", s.where, n, o.WaitReplicas, o.WaitTimeout, ErrNotDurable)
		}
	}
	return nil
}

// notDurable is the error of a wait for durability that failed with err
// after the transaction committed: ErrNotDurable, and also
// index.ErrUnavailable or the caller's context error as failure says.
func (s *Store) notDurable(ctx context.Context, op string, err error) error {
	err = s.failure(ctx, "committed; "+op, err)
	if errors.Is(err, index.ErrClosed) {
		return fmt.Errorf("redisstore: %s: committed; %s: %w: %w", s.where, op, index.ErrClosed, ErrNotDurable)
	}
	return fmt.Errorf("%w: %w", err, ErrNotDurable)
}

// Close closes the client and its connections. Calls after Close return
// index.ErrClosed; a second Close returns nil.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.rdb.Close()
}

// bucketScript adds (SADD) or removes (SREM) the group ARGV[1] to or from
// the buckets KEYS[1..n-1] and changes the entry count KEYS[n] by the
// number of entries actually added or removed, so that BucketEntries is
// the true number of entries.
var bucketScript = `
local n = 0
for i = 1, #KEYS - 1 do
	n = n + redis.call(ARGV[2], KEYS[i], ARGV[1])
end
if ARGV[2] == 'SREM' then n = -n end
return redis.call('INCRBY', KEYS[#KEYS], n)
`

// maxID bounds group ids and sequence numbers: the scores of G and D are
// float64s, exact to 2^53.
const maxID = 1 << 53

var errReadOnly = fmt.Errorf("redisstore: write in a View: %w", neardup.ErrInvalid)

// tx is a transaction: a View's (rtx nil: plain reads) or an Update's
// (reads watched on rtx's connection, writes queued in pipe).
type tx struct {
	s        *Store
	ctx      context.Context
	rtx      *redis.Tx
	pipe     redis.Pipeliner
	bands    int
	seen     map[string]struct{} // keys watched
	coarse   bool                // the version key is watched, instead of more keys
	watching bool                // a WATCH was answered: the connection holds watches
}

// watched runs the reads queued by read after a WATCH of keys, in one
// round trip on the transaction's connection (in a View: the reads alone,
// on any connection). Keys already watched are not sent again; once the
// transaction has watched Options.MaxWatch keys, it watches the version
// key instead, and no more keys (see Options.MaxWatch). Errors of the
// reads are left in their commands (redis.Nil for a missing key); a
// failed WATCH or a broken connection is returned.
func (t *tx) watched(keys []string, read func(p redis.Pipeliner)) error {
	var p redis.Pipeliner
	var watch *redis.Cmd
	if t.rtx != nil {
		p = t.rtx.Pipeline()
		args := []any{"watch"}
		for _, k := range keys {
			if t.coarse {
				break
			}
			if _, ok := t.seen[k]; ok {
				continue
			}
			if len(t.seen) >= t.s.o.MaxWatch {
				t.coarse = true
				k = t.s.key("version")
			}
			t.seen[k] = struct{}{}
			args = append(args, k)
		}
		if len(args) > 1 {
			watch = p.Do(t.ctx, args...)
		}
	} else {
		p = t.s.rdb.Pipeline()
	}
	read(p)
	rctx, cancel := t.s.roundTrip(t.ctx, 0)
	cmds, err := p.Exec(rctx)
	cancel()
	if watch != nil {
		if err := watch.Err(); err != nil {
			return t.fail("watch", err)
		}
		t.watching = true
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		for _, c := range cmds {
			if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) {
				return t.fail(fmt.Sprint(c.Args()[0]), e)
			}
		}
		return t.fail("pipeline", err)
	}
	return nil
}

func (t *tx) fail(op string, err error) error { return t.s.failure(t.ctx, op, err) }

// get reads a string record: index.ErrNotFound when missing.
func (t *tx) get(key string) ([]byte, error) {
	var c *redis.StringCmd
	if err := t.watched([]string{key}, func(p redis.Pipeliner) { c = p.Get(t.ctx, key) }); err != nil {
		return nil, err
	}
	v, err := c.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, index.ErrNotFound
	}
	return v, err
}

// ids appends the members of a set of numbers to dst, ascending.
func (t *tx) ids(dst []uint64, key string) ([]uint64, error) {
	var c *redis.StringSliceCmd
	if err := t.watched([]string{key}, func(p redis.Pipeliner) { c = p.SMembers(t.ctx, key) }); err != nil {
		return dst, err
	}
	n := len(dst)
	for _, m := range c.Val() {
		id, err := strconv.ParseUint(m, 10, 64)
		if err != nil {
			return dst, fmt.Errorf("redisstore: %w: member %q of %s", neardup.ErrCorrupt, m, key)
		}
		dst = append(dst, id)
	}
	slices.Sort(dst[n:])
	return dst, nil
}

func (t *tx) Bucket(dst []uint64, band int, key uint64) ([]uint64, error) {
	if band < 0 || band >= t.bands {
		return dst, fmt.Errorf("%w: band %d of %d", neardup.ErrInvalid, band, t.bands)
	}
	return t.ids(dst, t.s.bucketKey(band, key))
}

func (t *tx) Group(gid uint64) (index.Group, error) {
	v, err := t.get(t.s.groupKey(gid))
	if err != nil {
		return index.Group{}, err
	}
	return index.DecodeGroup(v)
}

func (t *tx) Members(dst []uint64, gid uint64) ([]uint64, error) {
	return t.ids(dst, t.s.membersKey(gid))
}

func (t *tx) Doc(seq uint64) (index.Doc, error) {
	v, err := t.get(t.s.docKey(seq))
	if err != nil {
		return index.Doc{}, err
	}
	return index.DecodeDoc(v)
}

func (t *tx) DocByID(id string) (index.Doc, error) {
	v, err := t.get(t.s.idKey(id))
	if err != nil {
		return index.Doc{}, err
	}
	seq, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return index.Doc{}, fmt.Errorf("redisstore: %w: id record %q", neardup.ErrCorrupt, v)
	}
	return t.Doc(seq)
}

func (t *tx) Counts() (docs, groups int64, err error) {
	var d, g *redis.IntCmd
	err = t.watched([]string{t.s.key("D"), t.s.key("G")}, func(p redis.Pipeliner) {
		d = p.ZCard(t.ctx, t.s.key("D"))
		g = p.ZCard(t.ctx, t.s.key("G"))
	})
	return d.Val(), g.Val(), err
}

func (t *tx) BucketEntries() (int64, error) {
	v, err := t.get(t.s.key("entries"))
	if errors.Is(err, index.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("redisstore: %w: entries %q", neardup.ErrCorrupt, v)
	}
	return n, nil
}

// page is the number of ids read per round trip by EachGroup and EachDoc.
const page = 256

// each calls fn with the records of the ids in the sorted set all, in
// ascending order, a page at a time; records removed meanwhile are left
// out.
func (t *tx) each(all string, recordKey func(uint64) string, fn func(id uint64, v []byte) error) error {
	after := "-inf"
	for {
		var c *redis.StringSliceCmd
		err := t.watched([]string{all}, func(p redis.Pipeliner) {
			c = p.ZRangeArgs(t.ctx, redis.ZRangeArgs{Key: all, Start: after, Stop: "+inf", ByScore: true, Count: page})
		})
		if err != nil {
			return err
		}
		ids := make([]uint64, len(c.Val()))
		keys := make([]string, len(ids))
		for i, m := range c.Val() {
			id, err := strconv.ParseUint(m, 10, 64)
			if err != nil {
				return fmt.Errorf("redisstore: %w: member %q of %s", neardup.ErrCorrupt, m, all)
			}
			ids[i], keys[i] = id, recordKey(id)
		}
		if len(ids) == 0 {
			return nil
		}
		var vals *redis.SliceCmd
		if err := t.watched(keys, func(p redis.Pipeliner) { vals = p.MGet(t.ctx, keys...) }); err != nil {
			return err
		}
		for i, v := range vals.Val() {
			s, ok := v.(string)
			if !ok {
				continue // removed since the range was read
			}
			if err := fn(ids[i], []byte(s)); err != nil {
				return err
			}
		}
		if len(ids) < page {
			return nil
		}
		after = "(" + strconv.FormatUint(ids[len(ids)-1], 10)
	}
}

func (t *tx) EachGroup(fn func(gid uint64, g index.Group) error) error {
	return t.each(t.s.key("G"), t.s.groupKey, func(gid uint64, v []byte) error {
		g, err := index.DecodeGroup(v)
		if err != nil {
			return err
		}
		return fn(gid, g)
	})
}

func (t *tx) EachDoc(fn func(d index.Doc) error) error {
	return t.each(t.s.key("D"), t.s.docKey, func(_ uint64, v []byte) error {
		d, err := index.DecodeDoc(v)
		if err != nil {
			return err
		}
		return fn(d)
	})
}

// newID hands out the next number of field ("seq" or "group") at once,
// outside the transaction.
func (t *tx) newID(field string) (uint64, error) {
	if t.rtx == nil {
		return 0, errReadOnly
	}
	rctx, cancel := t.s.roundTrip(t.ctx, 0)
	n, err := t.rtx.HIncrBy(rctx, t.s.key("ids"), field, 1).Result()
	cancel()
	if err != nil {
		return 0, t.fail("HINCRBY ids "+field, err)
	}
	if n < 1 || n >= maxID {
		return 0, fmt.Errorf("redisstore: %w: %s %d", neardup.ErrTooLarge, field, n)
	}
	return uint64(n), nil
}

// buckets queues the script that adds (SADD) or removes (SREM) gid in the
// buckets of keys.
func (t *tx) buckets(op string, gid uint64, keys []uint64) {
	ks := make([]string, 0, len(keys)+1)
	for b, k := range keys {
		ks = append(ks, t.s.bucketKey(b, k))
	}
	ks = append(ks, t.s.key("entries"))
	t.pipe.Eval(t.ctx, bucketScript, ks, gid, op)
}

func (t *tx) NewGroup(g index.Group) (uint64, error) {
	if t.rtx == nil {
		return 0, errReadOnly
	}
	if len(g.Keys) != t.bands {
		return 0, fmt.Errorf("%w: %d band keys for %d bands", neardup.ErrInvalid, len(g.Keys), t.bands)
	}
	gid, err := t.newID("group")
	if err != nil {
		return 0, err
	}
	t.pipe.Set(t.ctx, t.s.groupKey(gid), index.AppendGroup(nil, g), 0)
	t.buckets("SADD", gid, g.Keys)
	t.pipe.ZAdd(t.ctx, t.s.key("G"), redis.Z{Score: float64(gid), Member: gid})
	return gid, nil
}

func (t *tx) DeleteGroup(gid uint64, g index.Group) error {
	if t.rtx == nil {
		return errReadOnly
	}
	if len(g.Keys) != t.bands {
		return fmt.Errorf("%w: %d band keys for %d bands", neardup.ErrInvalid, len(g.Keys), t.bands)
	}
	t.pipe.Del(t.ctx, t.s.groupKey(gid), t.s.membersKey(gid))
	t.buckets("SREM", gid, g.Keys)
	t.pipe.ZRem(t.ctx, t.s.key("G"), gid)
	return nil
}

func (t *tx) NewSeq() (uint64, error) { return t.newID("seq") }

func (t *tx) PutDoc(d index.Doc) error {
	if t.rtx == nil {
		return errReadOnly
	}
	t.pipe.Set(t.ctx, t.s.docKey(d.Seq), index.AppendDoc(nil, d), 0)
	t.pipe.Set(t.ctx, t.s.idKey(d.ID), d.Seq, 0)
	t.pipe.SAdd(t.ctx, t.s.membersKey(d.Group), d.Seq)
	t.pipe.ZAdd(t.ctx, t.s.key("D"), redis.Z{Score: float64(d.Seq), Member: d.Seq})
	return nil
}

func (t *tx) DeleteDoc(d index.Doc) error {
	if t.rtx == nil {
		return errReadOnly
	}
	t.pipe.Del(t.ctx, t.s.docKey(d.Seq), t.s.idKey(d.ID))
	t.pipe.SRem(t.ctx, t.s.membersKey(d.Group), d.Seq)
	t.pipe.ZRem(t.ctx, t.s.key("D"), d.Seq)
	return nil
}

// LogTo sends what go-redis itself logs (each failed dial, each dropped
// connection: about twenty lines a connection pool while a server is
// down) to l at the Debug level, instead of the process's standard error.
// The failures that matter reach callers as errors. go-redis's logger is
// one for the whole process: LogTo sets it for every client.
func LogTo(l *slog.Logger) { redis.SetLogger(slogLogging{l}) }

type slogLogging struct{ l *slog.Logger }

func (s slogLogging) Printf(ctx context.Context, format string, v ...any) {
	s.l.DebugContext(ctx, "go-redis: "+strings.TrimSpace(fmt.Sprintf(format, v...)))
}
