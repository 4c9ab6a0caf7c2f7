// Package index is neardup's persistent near-duplicate index: documents are
// added one at a time (or in bulk), and a new text's near-duplicates among
// them are found in microseconds, with their exact Jaccard, across
// restarts, deletions and years of growth. The HTTP service (package
// server) and the `neardup index` commands are built on it.
//
// Who uses it from outside: a program that keeps an index in process
// (OpenPebble, Create or Open, Add, Query; see Example), or a store of its
// own behind the Store interface (checked by package index/indextest).
//
// # The same engine as dedup
//
// Texts are sketched by neardup.Sketcher (shingle set, fingerprint,
// signature, band keys), candidates are the groups that share a band key,
// and each is decided by neardup.Verifier: the same parts, parameters and
// contract as `neardup dedup`, so an index built from a corpus reports for
// each document the near-duplicates dedup pairs it with. Parameters
// (neardup.Params) are fixed when the index is created and stored with it;
// opening it with other shingling, slots, seed, bands or threshold is an
// error (neardup.ErrIncompatible), and a query may ask for a higher
// threshold, never a lower one (ErrThreshold).
//
// # Data
//
// A group is a distinct shingle set (its set, signature and band keys);
// documents with identical sets share a group, so ten thousand copies of a
// text are one candidate. A document has a caller's id (unique), a sequence
// number (increasing, never reused), its group and, if the index keeps
// texts, its text. The band tables map (band, key) to groups.
//
// # Stores and guarantees
//
// An Index works on a Store: the embedded PebbleStore (records in a Pebble
// database, band tables resident in memory, about 600 bytes per distinct
// text at a million) or a shared store such as Redis (package
// index/redisstore) that several processes use at once. Add checks and
// inserts in one Store.Update, a transaction that no other Update
// interleaves with (serialised in one process, optimistic across processes),
// so two concurrent Adds of one text cannot both come back without
// duplicates. When Add or Remove returns, the change is durable: with
// PebbleStore it is in the synced write-ahead log, and a crash of the
// process or the machine loses nothing that was acknowledged; with the
// Redis store, it survives what the server's persistence settings make it
// survive, or what Options.WaitAOF has the server confirm (see
// redisstore.Store.Update). A change not yet acknowledged may or may not
// survive (and may already have been seen by another Add as a duplicate).
// Check verifies that an index agrees with itself.
package index
