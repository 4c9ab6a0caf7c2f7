// Package dedupout writes the lines of dedup's outputs, the pairs TSV and
// the clusters JSONL, so that every program that writes them (neardup
// dedup, the Beam pipeline) writes the same bytes for the same result.
package dedupout

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

var fieldEscaper = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// EscapeField makes an id safe for one TSV field: backslash, tab, newline
// and carriage return become \\, \t, \n and \r.
func EscapeField(s string) string {
	if !NeedsEscape(s) {
		return s
	}
	return fieldEscaper.Replace(s)
}

// NeedsEscape reports whether EscapeField would change s.
func NeedsEscape(s string) bool { return strings.ContainsAny(s, "\\\t\n\r") }

// UnescapeField reverses EscapeField: \\, \t, \n and \r become a
// backslash, tab, newline and carriage return. A backslash before any
// other byte, or at the end, stands for itself (EscapeField never writes
// one), so every string has a reading and UnescapeField(EscapeField(s))
// is s.
func UnescapeField(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '\\':
				c = '\\'
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			default:
				sb.WriteByte(c)
				continue
			}
			i++
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// ErrPairLine is the error ParsePair wraps for a line that is not a pairs
// line.
var ErrPairLine = errors.New("not a pairs line")

// ParsePair reads a pairs line as AppendPair writes it, without its line
// end: the two ids, unescaped, and the Jaccard, a number in [0, 1]. A
// fourth column (dedup --refine edit's edit similarity, also in [0, 1])
// is checked and returned in edit, else edit is -1. A line of any other
// shape gives an error wrapping ErrPairLine that says what is wrong.
func ParsePair(line string) (idA, idB string, jaccard, edit float64, err error) {
	fields := strings.Split(line, "\t")
	if len(fields) != 3 && len(fields) != 4 {
		return "", "", 0, 0, fmt.Errorf("%w: want 3 or 4 tab-separated fields (id_a, id_b, jaccard[, edit]), got %d", ErrPairLine, len(fields))
	}
	edit = -1
	for k, f := range fields[2:] {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || !(x >= 0 && x <= 1) {
			return "", "", 0, 0, fmt.Errorf("%w: %s %q is not a number in [0, 1]", ErrPairLine, [2]string{"jaccard", "edit"}[k], f)
		}
		if k == 0 {
			jaccard = x
		} else {
			edit = x
		}
	}
	return UnescapeField(fields[0]), UnescapeField(fields[1]), jaccard, edit, nil
}

// AppendPair appends a pairs line without its line end: the two ids
// (escaped) and the Jaccard with 6 decimals, tab-separated.
func AppendPair(dst []byte, idA, idB string, jaccard float64) []byte {
	return AppendEscapedPair(dst, EscapeField(idA), EscapeField(idB), jaccard)
}

// AppendEscapedPair is AppendPair for ids already escaped (EscapeField):
// for a writer that escapes each id once rather than once a line.
func AppendEscapedPair(dst []byte, idA, idB string, jaccard float64) []byte {
	dst = append(dst, idA...)
	dst = append(dst, '\t')
	dst = append(dst, idB...)
	dst = append(dst, '\t')
	return AppendNumber(dst, jaccard)
}

// Number is a similarity as the outputs write it: 6 decimals.
func Number(x float64) json.Number { return json.Number(AppendNumber(nil, x)) }

// AppendNumber appends x with 6 decimals: the bytes of
// strconv.AppendFloat(dst, x, 'f', 6, 64), for every x. A similarity in
// [0, 1] (every one a pairs file holds) takes a fast path, several times
// quicker, unless x·10⁶ is so close to a half that rounding the float64
// product might not round the exact value the same way: then, and outside
// [0, 1], it calls strconv. It does not allocate when dst has room.
func AppendNumber(dst []byte, x float64) []byte {
	if !(x >= 0 && x <= 1) || math.Signbit(x) {
		return strconv.AppendFloat(dst, x, 'f', 6, 64)
	}
	// y is within 2⁻³³ of x·10⁶ (half an ulp below 2²⁰), and y-n is
	// exact, so unless the fraction is within 10⁻⁶ of one half, y rounds
	// to the same integer as the exact value does.
	y := x * 1e6
	n := math.Floor(y)
	f := y - n
	if math.Abs(f-0.5) < 1e-6 {
		return strconv.AppendFloat(dst, x, 'f', 6, 64)
	}
	u := uint32(n)
	if f > 0.5 {
		u++
	}
	var b [8]byte
	b[0], b[1] = byte('0'+u/1000000), '.'
	u %= 1000000
	for i := 7; i >= 2; i-- {
		b[i] = byte('0' + u%10)
		u /= 10
	}
	return append(dst, b[:]...)
}

// NumberCache appends numbers as AppendNumber does, keeping the text of
// the last one: a pairs listing repeats a Jaccard value over runs of
// lines (the pairs of a document with the members of a group of
// identical copies), and copying its 8 bytes is several times quicker
// than formatting it. The zero value is ready; it is not safe for
// concurrent use.
type NumberCache struct {
	bits uint64 // math.Float64bits of the number text holds
	text []byte // nil before the first number
}

// Append appends x with 6 decimals: the bytes of AppendNumber(dst, x).
func (c *NumberCache) Append(dst []byte, x float64) []byte {
	if b := math.Float64bits(x); c.text != nil && b == c.bits {
		return append(dst, c.text...)
	}
	at := len(dst)
	dst = AppendNumber(dst, x)
	c.bits, c.text = math.Float64bits(x), append(c.text[:0], dst[at:]...)
	return dst
}

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
