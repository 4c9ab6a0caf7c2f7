package server

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3.0 description of the API (openapi.json beside
// this file), served at /openapi.json. Tests check that it describes
// exactly the routes a Server registers and that real answers conform to
// its schemas.
//
//go:embed openapi.json
var OpenAPI []byte

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(OpenAPI)
}
