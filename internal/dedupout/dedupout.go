// Package dedupout writes the lines of dedup's outputs, the pairs TSV and
// the clusters JSONL, so that every program that writes them (neardup
// dedup, the Beam pipeline) writes the same bytes for the same result.
package dedupout

import (
	"encoding/json"
	"strconv"
	"strings"
)

var fieldEscaper = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// EscapeField makes an id safe for one TSV field: backslash, tab, newline
// and carriage return become \\, \t, \n and \r.
func EscapeField(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	return fieldEscaper.Replace(s)
}

// AppendPair appends a pairs line without its line end: the two ids
// (escaped) and the Jaccard with 6 decimals, tab-separated.
func AppendPair(dst []byte, idA, idB string, jaccard float64) []byte {
	dst = append(dst, EscapeField(idA)...)
	dst = append(dst, '\t')
	dst = append(dst, EscapeField(idB)...)
	dst = append(dst, '\t')
	return strconv.AppendFloat(dst, jaccard, 'f', 6, 64)
}

// Number is a similarity as the outputs write it: 6 decimals.
func Number(x float64) json.Number { return json.Number(strconv.FormatFloat(x, 'f', 6, 64)) }

// Member is a cluster member in a clusters line.
type Member struct {
	ID      string       `json:"id"`
	Jaccard json.Number  `json:"jaccard"`
	Edit    *json.Number `json:"edit,omitempty"` // --refine edit only
}

// Cluster is one line of the clusters JSONL.
type Cluster struct {
	Cluster        int         `json:"cluster"`
	Size           int         `json:"size"`
	Representative string      `json:"representative"`
	Members        []Member    `json:"members"`
	MinJaccard     json.Number `json:"min_jaccard"`     // lowest member Jaccard with the representative
	BelowThreshold int         `json:"below_threshold"` // members below --threshold with the representative
	Review         bool        `json:"review"`          // over --max-cluster: set aside, nothing dropped
}

// AppendCluster appends c as one JSON line, its line end included, as
// encoding/json writes it with HTML escaping off.
func AppendCluster(dst []byte, c *Cluster) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return dst, err
	}
	return append(dst, b.String()...), nil
}
