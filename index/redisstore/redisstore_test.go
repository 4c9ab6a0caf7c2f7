package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/indextest"
	"github.com/neardup/neardup/internal/redistest"
)

var ctx = context.Background()

// prefixes numbers the prefixes of the tests' stores: "tN:" is never a
// prefix of another "tM:".
var prefixes atomic.Int64

func newPrefix() string { return fmt.Sprintf("t%d:", prefixes.Add(1)) }

// open opens a store of srv's database 0 and closes it when t ends.
func open(t *testing.T, srv *redistest.Server, o Options) *Store {
	t.Helper()
	st, err := Open(ctx, srv.URL(0), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// harness makes stores in srv, each under a fresh prefix; Reopen opens a
// new client on the same prefix, as another process would.
func harness(srv *redistest.Server) indextest.Harness {
	return indextest.Harness{
		New: func(t *testing.T) index.Store { return open(t, srv, Options{Prefix: newPrefix()}) },
		Reopen: func(t *testing.T, st index.Store) index.Store {
			t.Helper()
			s := st.(*Store)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return open(t, srv, s.o)
		},
	}
}

// TestConformance runs the Store conformance suite on Redis stores.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	indextest.Run(t, harness(srv))
}

// TestTwoClientsOneText: two stores with their own clients (as two serve
// processes have) and an Index on each, concurrent Adds of one text
// through both: exactly one comes back clean in every round, and the
// transactions did conflict and retry.
func TestTwoClientsOneText(t *testing.T) {
	srv := redistest.Start(t)
	o := Options{Prefix: newPrefix()}
	st1, st2 := open(t, srv, o), open(t, srv, o)
	ix1, err := index.Create(ctx, st1, index.Meta{}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix2, err := index.Open(ctx, st2, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	indextest.ConcurrentAddsOfOneText(t, harness(srv), []*index.Index{ix1, ix2})
	s1, s2 := st1.Stats(), st2.Stats()
	t.Logf("client 1: %+v, client 2: %+v", s1, s2)
	if s1.Retries+s2.Retries == 0 {
		t.Errorf("no transaction was retried: the concurrent Adds did not overlap, the test proved nothing")
	}
}

// TestCheckAndInsertAcrossClients: an Update that found no document "x"
// and inserts one, while another client's Update inserted "x" in between,
// does not commit: it runs again and then sees "x".
func TestCheckAndInsertAcrossClients(t *testing.T) {
	srv := redistest.Start(t)
	o := Options{Prefix: newPrefix()}
	st1, st2 := open(t, srv, o), open(t, srv, o)
	if _, err := index.Create(ctx, st1, index.Meta{}, index.Options{}); err != nil {
		t.Fatal(err)
	}
	insert := func(tx index.Tx, id string) error {
		seq, err := tx.NewSeq()
		if err != nil {
			return err
		}
		return tx.PutDoc(index.Doc{Seq: seq, ID: id, Group: 1})
	}
	runs := 0
	err := st1.Update(ctx, func(tx index.Tx) error {
		runs++
		_, err := tx.DocByID("x")
		if err == nil {
			return fmt.Errorf("x: %w", index.ErrExists)
		}
		if !errors.Is(err, index.ErrNotFound) {
			return err
		}
		if runs == 1 { // the other client inserts x meanwhile
			if err := st2.Update(ctx, func(tx index.Tx) error { return insert(tx, "x") }); err != nil {
				t.Fatal(err)
			}
		}
		return insert(tx, "x")
	})
	if !errors.Is(err, index.ErrExists) || runs != 2 {
		t.Fatalf("Update: %v after %d runs; want ErrExists on the second run", err, runs)
	}
	st1.View(ctx, func(tx index.Tx) error {
		if docs, _, err := tx.Counts(); err != nil || docs != 1 {
			t.Errorf("%d documents, %v; want the other client's only", docs, err)
		}
		return nil
	})
	if s := st1.Stats(); s.Retries != 1 {
		t.Errorf("stats %+v, want 1 retry", s)
	}
}

// TestConflictAttemptsRunOut: an Update that loses every attempt returns
// an error wrapping index.ErrConflict after MaxAttempts runs, having
// written nothing.
func TestConflictAttemptsRunOut(t *testing.T) {
	srv := redistest.Start(t)
	o := Options{Prefix: newPrefix(), MaxAttempts: 3}
	st := open(t, srv, o)
	if _, err := index.Create(ctx, st, index.Meta{}, index.Options{}); err != nil {
		t.Fatal(err)
	}
	other := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer other.Close()
	runs := 0
	start := time.Now()
	err := st.Update(ctx, func(tx index.Tx) error {
		runs++
		if _, err := tx.DocByID("x"); !errors.Is(err, index.ErrNotFound) {
			return err
		}
		// Another client touches the key read (and leaves it absent).
		if err := other.Set(ctx, o.Prefix+"i:x", "1", 0).Err(); err != nil {
			return err
		}
		if err := other.Del(ctx, o.Prefix+"i:x").Err(); err != nil {
			return err
		}
		seq, err := tx.NewSeq()
		if err != nil {
			return err
		}
		return tx.PutDoc(index.Doc{Seq: seq, ID: "x", Group: 1})
	})
	if !errors.Is(err, index.ErrConflict) || runs != 3 {
		t.Fatalf("Update: %v after %d runs; want ErrConflict after 3", err, runs)
	}
	t.Logf("%v in %v", err, time.Since(start))
	st.View(ctx, func(tx index.Tx) error {
		if docs, _, err := tx.Counts(); err != nil || docs != 0 {
			t.Errorf("%d documents, %v; want none", docs, err)
		}
		return nil
	})
}

// TestMaxWatch: a transaction that reads more than MaxWatch keys
// conflicts with any commit made during it (through the version key),
// one that reads fewer only with commits that change what it read; with
// a tiny MaxWatch, concurrent Adds of one text through two clients still
// have exactly one clean.
func TestMaxWatch(t *testing.T) {
	srv := redistest.Start(t)
	for _, c := range []struct {
		maxWatch, wantRuns int
	}{{0, 1}, {4, 2}} {
		o := Options{Prefix: newPrefix(), MaxWatch: c.maxWatch}
		st1, st2 := open(t, srv, o), open(t, srv, o)
		if _, err := index.Create(ctx, st1, index.Meta{}, index.Options{}); err != nil {
			t.Fatal(err)
		}
		runs := 0
		err := st1.Update(ctx, func(tx index.Tx) error {
			runs++
			for _, id := range []string{"a", "b", "c", "d", "e"} { // with meta, 6 keys
				if _, err := tx.DocByID(id); !errors.Is(err, index.ErrNotFound) {
					return err
				}
			}
			if runs == 1 { // another client adds a document not read
				err := st2.Update(ctx, func(tx index.Tx) error {
					seq, err := tx.NewSeq()
					if err != nil {
						return err
					}
					return tx.PutDoc(index.Doc{Seq: seq, ID: "z", Group: 1})
				})
				if err != nil {
					return err
				}
			}
			seq, err := tx.NewSeq()
			if err != nil {
				return err
			}
			return tx.PutDoc(index.Doc{Seq: seq, ID: "a", Group: 1})
		})
		if err != nil || runs != c.wantRuns {
			t.Errorf("MaxWatch %d: %v after %d runs, want %d runs", c.maxWatch, err, runs, c.wantRuns)
		}
	}
	o := Options{Prefix: newPrefix(), MaxWatch: 8}
	st1, st2 := open(t, srv, o), open(t, srv, o)
	ix1, err := index.Create(ctx, st1, index.Meta{}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix2, err := index.Open(ctx, st2, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	indextest.ConcurrentAddsOfOneText(t, harness(srv), []*index.Index{ix1, ix2})
}

// TestViewToleratesRemovals: records removed by another client while a
// View iterates are left out, not errors.
func TestViewToleratesRemovals(t *testing.T) {
	srv := redistest.Start(t)
	o := Options{Prefix: newPrefix()}
	st1, st2 := open(t, srv, o), open(t, srv, o)
	ix, err := index.Create(ctx, st1, index.Meta{}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := indextest.GenDocs(t, 700, 5)
	var items []index.AddItem
	for i, d := range docs {
		items = append(items, index.AddItem{ID: fmt.Sprint(i), Text: []byte(d)})
	}
	if _, err := ix.AddBatch(ctx, items, index.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	ix2, err := index.Open(ctx, st2, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := ix.Stats(ctx)
	var seen []string
	removed := map[string]bool{}
	err = st1.View(ctx, func(tx index.Tx) error {
		return tx.EachDoc(func(d index.Doc) error {
			if seen = append(seen, d.ID); len(seen) == 1 { // remove every even id but 0
				for i := 2; i < len(docs); i += 2 {
					if err := ix2.Remove(ctx, fmt.Sprint(i)); err == nil {
						removed[fmt.Sprint(i)] = true
					}
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// The first page was read before the removals; after it, no removed
	// document shows, and every other one does.
	late := 0
	for _, id := range seen[page:] {
		if removed[id] {
			t.Errorf("EachDoc returned %s, removed before its page was read", id)
		}
		late++
	}
	if want := int(before.Documents) - page - len(removed); late != want+countIn(seen[:page], removed) {
		t.Errorf("EachDoc returned %d documents after the first page, want %d", late, want+countIn(seen[:page], removed))
	}
	t.Logf("%d documents, %d removed during EachDoc, which returned %d", before.Documents, len(removed), len(seen))
	indextest.Check(t, ix)
}

func countIn(ids []string, set map[string]bool) int {
	n := 0
	for _, id := range ids {
		if set[id] {
			n++
		}
	}
	return n
}

// TestPrefixesIsolate: indexes under different prefixes of one database
// do not see each other.
func TestPrefixesIsolate(t *testing.T) {
	srv := redistest.Start(t)
	a := open(t, srv, Options{}) // the default prefix
	b := open(t, srv, Options{Prefix: newPrefix()})
	ixA, err := index.Create(ctx, a, index.Meta{}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ixB, err := index.Create(ctx, b, index.Meta{Params: neardup.Params{Threshold: 0.7}}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := []byte("one text put in both indexes under two prefixes of one redis database")
	for _, ix := range []*index.Index{ixA, ixB} {
		if res, err := ix.Add(ctx, "same-id", text, index.AddOptions{}); err != nil || len(res.Duplicates) != 0 {
			t.Fatalf("Add: %+v, %v", res, err)
		}
	}
	n, err := redis.NewClient(&redis.Options{Addr: srv.Addr}).Keys(ctx, "neardup:*").Result()
	if err != nil || len(n) == 0 {
		t.Fatalf("keys under the default prefix: %v, %v", n, err)
	}
	for _, ix := range []*index.Index{ixA, ixB} {
		if r := indextest.Check(t, ix); r.Documents != 1 || r.Groups != 1 {
			t.Errorf("%v: %+v, want its own document only", ix.Params(), r)
		}
	}
}

// TestOpenErrors: a bad URL, a port nobody listens on, a database that
// does not exist.
func TestOpenErrors(t *testing.T) {
	srv := redistest.Start(t)
	if _, err := Open(ctx, "http://"+srv.Addr, Options{}); !errors.Is(err, neardup.ErrOptions) {
		t.Errorf("an http URL: %v, want ErrOptions", err)
	}
	if _, err := Open(ctx, srv.URL(0), Options{MaxAttempts: -1}); !errors.Is(err, neardup.ErrOptions) {
		t.Errorf("MaxAttempts -1: %v, want ErrOptions", err)
	}
	if _, err := Open(ctx, srv.URL(100000), Options{}); err == nil {
		t.Errorf("database 100000: no error")
	}
	dead := redistest.Start(t)
	dead.Kill()
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := Open(c, "redis://user:secret@"+dead.Addr+"/0", Options{}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a server that is down: %v; want an error without the password", err)
	} else {
		t.Logf("down: %v", err)
	}
}

// TestDurabilityOfConfigurations shows what package doc says of
// durability: with the append-only file and appendfsync always, every
// acknowledged Add survives a SIGKILL of the server; without persistence
// (the tests' default) nothing does.
func TestDurabilityOfConfigurations(t *testing.T) {
	docs := indextest.GenDocs(t, 200, 9)
	for _, c := range []struct {
		name    string
		args    []string
		survive bool
	}{
		{"appendfsync always", []string{"--appendonly", "yes", "--appendfsync", "always"}, true},
		{"no persistence", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Start(t, c.args...)
			o := Options{Prefix: newPrefix()}
			st := open(t, srv, o)
			ix, err := index.Create(ctx, st, index.Meta{}, index.Options{})
			if err != nil {
				t.Fatal(err)
			}
			added := 0
			for i, d := range docs {
				if _, err := ix.Add(ctx, fmt.Sprint(i), []byte(d), index.AddOptions{}); err == nil {
					added++
				}
			}
			srv.Kill()
			srv.Restart()
			st2 := open(t, srv, o)
			ix2, err := index.Open(ctx, st2, index.Options{})
			if !c.survive {
				if !errors.Is(err, index.ErrNoIndex) {
					t.Fatalf("open after a crash without persistence: %v, want ErrNoIndex", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r := indextest.Check(t, ix2); r.Documents != int64(added) {
				t.Fatalf("%d documents after the crash, %d were acknowledged", r.Documents, added)
			}
		})
	}
}

// TestWaitReplicas: with a real replica, Updates with WaitReplicas 1
// return once the replica has the transaction (it answers reads of it at
// once); asking for more replicas than there are is ErrNotDurable, after
// the transaction committed.
func TestWaitReplicas(t *testing.T) {
	primary := redistest.Start(t, "--repl-diskless-sync-delay", "0") // the default waits 5 s for more replicas
	replica := redistest.Start(t, "--replicaof", "127.0.0.1", fmt.Sprint(primary.Port))
	rc := redis.NewClient(&redis.Options{Addr: replica.Addr})
	defer rc.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := rc.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not connect within 10 s: %v %s", err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
	o := Options{Prefix: newPrefix(), WaitReplicas: 1}
	st := open(t, primary, o)
	ix, err := index.Create(ctx, st, index.Meta{}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range indextest.GenDocs(t, 50, 13) {
		id := fmt.Sprint(i)
		if _, err := ix.Add(ctx, id, []byte(d), index.AddOptions{}); err != nil && !errors.Is(err, index.ErrNoShingles) {
			t.Fatal(err)
		}
		if err == nil {
			if n, err := rc.Exists(ctx, o.Prefix+"i:"+id).Result(); err != nil || n != 1 {
				t.Fatalf("the replica lacks %s right after Add returned: %d, %v", id, n, err)
			}
		}
	}
	o.WaitReplicas, o.WaitTimeout = 2, 100*time.Millisecond
	st2 := open(t, primary, o)
	ix2, err := index.Open(ctx, st2, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ix2.Add(ctx, "more", []byte("a text for two replicas of which there is only one"), index.AddOptions{})
	if !errors.Is(err, ErrNotDurable) {
		t.Fatalf("WaitReplicas 2 with one replica: %v, want ErrNotDurable", err)
	}
	if _, err := ix.Get(ctx, "more"); err != nil {
		t.Errorf("the transaction was not committed: %v", err)
	}
}

// TestWaitAOF: WaitAOF needs WAITAOF (Redis 7.2) and an append-only file;
// Open says so when the server lacks either, and Updates succeed when it
// has both.
func TestWaitAOF(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "everysec")
	info, err := redis.NewClient(&redis.Options{Addr: srv.Addr}).Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	hasWaitAOF := !strings.Contains(info, "redis_version:6.") && !strings.Contains(info, "redis_version:7.0.") && !strings.Contains(info, "redis_version:7.1.")
	st, err := Open(ctx, srv.URL(0), Options{Prefix: newPrefix(), WaitAOF: true})
	if !hasWaitAOF {
		if !errors.Is(err, neardup.ErrOptions) {
			t.Fatalf("WaitAOF on a server without WAITAOF: %v, want ErrOptions", err)
		}
		t.Logf("as expected on this server: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix, err := index.Create(ctx, st, index.Meta{}, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Add(ctx, "a", []byte("a text fsynced before Add returns"), index.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	noAOF := redistest.Start(t)
	if _, err := Open(ctx, noAOF.URL(0), Options{WaitAOF: true}); !errors.Is(err, neardup.ErrOptions) {
		t.Errorf("WaitAOF on a server without an append-only file: %v, want ErrOptions", err)
	}
}
