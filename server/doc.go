// Package server is the HTTP service of a near-duplicate index (package
// index): JSON over HTTP, described by the OpenAPI 3.0 document
// openapi.json (served at /openapi.json). `neardup serve` runs it; package
// client is its Go client.
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
// Every error answer is {"error": {"code", "message"}}; the codes are the
// Code constants, stable, each with one status: 4xx for every mistake of
// the client, 500 internal only for faults of the server or its store
// (logged, never described in the answer), 503 unavailable when the index
// is closed or does not answer. A text without shingles is 422
// no_shingles: well-formed, but it can be nobody's near-duplicate. A panic
// in a handler is recovered, logged with its stack and answered 500
// internal (or, if the answer had begun, the connection is aborted).
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
