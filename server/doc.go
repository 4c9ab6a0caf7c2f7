// Package server is the HTTP service of a near-duplicate index (package
// index): JSON over HTTP, described by the OpenAPI 3.0 document
// openapi.json (served at /openapi.json). `neardup serve` runs it; package
// client is its Go client.
//
// Who uses it from outside: `neardup serve`; a library user takes it to
// serve an index of their own over HTTP (New, then the Server as an
// http.Handler in their own http.Server), with its routes, error codes,
// limits and metrics as documented here.
//
// # Routes
//
//	POST   /v1/documents                  {"id","text"}: check and insert in one atomic step
//	POST   /v1/documents:batch            {"documents": [{"id","text"}, ...]}: each as above, in order
//	POST   /v1/documents/batch            the same (for clients that cannot send ':')
//	POST   /v1/query                      {"text","threshold"?,"limit"?}: near-duplicates, nothing inserted
//	GET    /v1/documents/{id}             {"id","seq","added","text"?}
//	GET    /v1/documents/{id}/duplicates  ?threshold=&limit=: {"id","duplicates"}
//	DELETE /v1/documents/{id}             204
//	GET    /healthz                       200 {"status":"ok"} while the process serves
//	GET    /readyz                        200 when the index answers a read; 503 otherwise or once BeginShutdown was called
//	GET    /metrics                       Prometheus text format
//	GET    /openapi.json                  the API description
//
// An add answers 201 {"id","added":true,"replaced":false,"seq","duplicates":
// [{"id","jaccard"}]} listing the near-duplicates already in the index,
// most similar first, with their exact Jaccard; 200 with "replaced": true
// for ?replace=true over an existing id; 200 with "added": false when
// ?if_unique=true found duplicates. ?limit=N bounds the duplicates listed.
// Two concurrent adds of one text cannot both come back without duplicates
// (index.Index.Add is atomic), and a 2xx is sent only once the change is
// durable. A batch answers 200 {"results": [...]}, one result per document
// in order, each with its own "status" (201, 200, or an error status with
// "error"), all written in one transaction.
//
// Ids are any non-empty strings; in paths they are one escaped segment
// (EscapeID): "a/b" is a%2Fb, and "." and ".." are %2E and %2E%2E.
//
// # Requests and errors
//
// Bodies are JSON (Content-Type application/json or application/*+json,
// else 415) of at most Options.MaxBody bytes (else 413), valid UTF-8, one
// value with nothing after it. Member names are matched exactly; unknown
// members are refused (400 unknown_field) rather than ignored, so that a
// misspelt "threshold" is not silently replaced by the index's; a member
// whose value is null counts as absent. Unknown or repeated query
// parameters are refused too (400 bad_parameter).
//
// A Content-Length over MaxBody is answered 413 body_too_large at once,
// without reading the body, with Connection: close. What the client still
// sends is then read and thrown away for up to a second, so that a client
// busy writing its body sees the answer rather than a reset connection,
// and the connection is closed.
//
// The bodies being served at once share a memory budget,
// Options.MaxInFlightBytes (8 x MaxBody unless set). Before reading its
// body a request takes its length from the budget (its Content-Length; for
// a chunked body MaxBody while it is read, then its length), and gives it
// back when its handler returns: the parsed values and the texts handed to
// the index live until then. A request that finds no room waits, first
// come first served, up to a second; then it is answered 503 overloaded
// with Retry-After: 1 and Connection: close, its body unread (and thrown
// away as above). A body larger than the whole budget but within MaxBody
// is served alone. The process's memory for requests stays within a few
// times the budget: 64 concurrent queries of 8 MB, with the default 64 MiB,
// took a server to 477 MB (16 answered, 48 overloaded), where it had taken
// 2.6 GB without the budget.
//
// Every error answer is {"error": {"code", "message"}}; the codes are the
// Code constants, stable, each with one status: 4xx for every mistake of
// the client, 500 internal only for faults of the server or its store
// (logged, never described in the answer), 500 corrupt when a record of
// the index fails its checksum (that request only: the server goes on),
// 503 unavailable (with Retry-After) when the index is closed or its
// store does not answer (a Redis server stopped or paused: within the
// store's time bound, not the outage's length), 503 overloaded when the
// budget of bodies stays full, 507 no_space (with Retry-After) for a
// write on a full disk, which changes nothing while reads go on (and, once
// the write-ahead log itself could not be written, until the server
// restarts: /readyz then answers 503 and says so). A text without
// shingles is 422 no_shingles: well-formed, but
// it can be nobody's near-duplicate. A panic in a handler is recovered,
// logged with its stack and answered 500 internal (or, if the answer had
// begun, the connection is aborted).
//
// # Authentication
//
// With Options.Token, /v1/ and /metrics ask for Authorization: Bearer
// TOKEN (401 unauthorized with WWW-Authenticate: Bearer otherwise), the
// token compared in constant time; /healthz, /readyz and /openapi.json
// never do, so that probes need no secret. Transport security (TLS) is for
// a proxy in front: `neardup serve` refuses to listen beyond loopback
// without a token.
package server
