// Package shingle turns text into sets of 64-bit shingle hashes and computes
// their exact Jaccard index.
//
// Who uses it from outside: neardup.Sketcher shingles through it, so a
// program that dedups or indexes needs it only to set Options (in
// neardup.Params); a library user takes it directly to compute, for texts
// of their own, the exact similarity neardup reports (Shingler.AppendSet,
// then Jaccard), or to shingle text for a sketch of their own.
//
// The definitions below are a contract: the similarity neardup reports is
// the exact Jaccard index of these shingle sets (hash collisions aside), and
// the hash values are stable across runs, processes, machines and
// endianness. Golden tests pin them.
//
// # Shingles
//
// With [Options].NFKC the text is first put in Unicode Normalization Form
// KC ([golang.org/x/text/unicode/norm], NFKC); otherwise it is taken as it
// is. Both modes then lower-case the text exactly as [strings.ToLower]
// does: each rune r becomes [unicode.ToLower](r), and each byte that is not
// part of valid UTF-8 (as decoded by [utf8.DecodeRune], one byte at a time)
// becomes U+FFFD, which is neither a letter, a digit nor a space.
//
// Word mode (the default, N defaults to [DefaultWordN]): each lower-cased
// rune is one of
//   - solo: a letter or digit ([unicode.IsLetter] or [unicode.IsDigit]) of
//     a script written without spaces between words, [unicode.Han],
//     [unicode.Hiragana], [unicode.Katakana], [unicode.Thai], [unicode.Lao],
//     [unicode.Khmer] or [unicode.Myanmar], or U+30FC KATAKANA-HIRAGANA
//     PROLONGED SOUND MARK;
//   - word: any other letter or digit;
//   - mark: a combining mark ([unicode.M]);
//   - separator: anything else.
//
// Reading the runes in order, a solo rune always starts a new token, which
// nothing but marks may continue; a word rune continues the current token
// unless that token began with a solo rune, else starts one; a mark
// continues the current token, and is a separator when there is none (at
// the start of the text or after a separator); a separator ends the
// current token. So the tokens of text in Latin, Cyrillic, Greek, Hangul
// and other scripts with spaces are the maximal runs of letters and digits,
// with their combining marks; a word in Devanagari, Thai or decomposed
// Latin is never cut at a vowel sign, virama or accent; and each Han, kana,
// Thai, Lao, Khmer or Myanmar character is a token, so that word n-grams
// there are character n-grams and white space or a line break between two
// of them changes nothing. A shingle is N consecutive tokens. A text with
// at least one but fewer than N tokens has exactly one shingle: all its
// tokens. (Before neardup.SketchVersion 2, a token was a
// maximal run of letters and digits, with no solo runes and no marks.)
//
// Why not Unicode word boundaries (UAX #29): they cut Han and Hiragana at
// every character too (finding Chinese or Japanese words takes a
// dictionary), but keep a run of Katakana together (rule WB13), so a line
// break inside a Katakana word would still cut it in two. One character per
// token needs no table beyond the script ranges, costs nothing on text
// without those scripts, and makes n-grams over any mix of scripts well
// defined.
//
// Char mode (N defaults to [DefaultCharN]): the lower-cased text has every
// run of white space ([unicode.IsSpace]) replaced by one space U+0020,
// leading and trailing white space removed, and a run of white space
// removed altogether when the code points just before and just after it
// are both wide: East Asian Wide or Fullwidth ([golang.org/x/text/width])
// and not [unicode.Hangul], or of the [unicode.Thai], [unicode.Lao],
// [unicode.Khmer] or [unicode.Myanmar] script; in text written without
// spaces, a line break is where a line wrapped, not a word break. A
// shingle is N consecutive code points (not bytes). A non-empty normalised
// text of at most N code points has exactly one shingle: the whole text.
//
// A text with no token (Word) or no code point other than white space
// (Char) has no shingles. The set of a text is the set of its shingles'
// hashes. With [Options].Bag, the k-th repetition (k = 1, 2, ...) of a
// shingle in one text is a distinct element (see below), so the Jaccard
// index of two bags is the multiset Jaccard index Σmin/Σmax of their
// shingle counts.
//
// # Hash
//
// mum(a, b) is the 128-bit product of the unsigned 64-bit a and b, its high
// 64 bits XOR its low 64 bits. All arithmetic is modulo 2^64. The constants
// are
//
//	K0 = 0xa0761d6478bd642f  K1 = 0xe7037ed1a0b428db  K2 = 0x8ebc6af09c88c6e3
//	K3 = 0x589965cc75374cc3  K4 = 0x1d8e4e27c47d124f
//	K5 = 0x9e3779b97f4a7c15  K6 = 0xbf58476d1ce4e5b9
//
// H(p), the hash of a byte string p of length L: split p into 8-byte
// chunks, the last one possibly shorter and padded with zero bytes, and read
// each chunk as a little-endian uint64 w; start from h = K0, for each chunk
// in order set h = mum(h XOR w, K1), and return mum(h XOR L, K2). (The empty
// string has no chunk: H = mum(K0, K2).)
//
// A word shingle of tokens t1 ... tk (k = N, or fewer for a short text) has
// hash s, where s = K3 and then, for i = 1 ... k in order,
// s = mum(s XOR H(ti), K4); H(ti) hashes the UTF-8 of the lower-cased
// token.
//
// A char shingle's hash is H of the UTF-8 of its code points (after
// normalisation; each invalid input byte contributes U+FFFD, EF BF BD).
//
// In bag mode, if a shingle with hash h occurs c times in a text, its
// elements are h and B(h, j) for j = 1 ... c-1, where
// B(h, j) = mum(h XOR (j × K5), K6).
//
// The set is the sorted list of distinct element hashes.
//
// # Performance
//
// [Shingler.AppendSet] builds no string per shingle: it hashes tokens while
// it scans them (an ASCII fast path lower-cases and hashes 8 bytes at a
// time and needs no Unicode tables), keeps the hashes of the last N tokens
// in a ring, and sorts the result with a bucket sort suited to uniform
// hashes; in a text that is ASCII but for a few runes, the runs of ASCII
// between them take that path too. Other text takes a rune at a time
// through a table of what
// lower-casing and the rules above make of each rune (its lower case in
// UTF-8, its class in Word mode, white space, wide), built from the
// unicode package's own functions on first use, a block of 128 runes at a
// time, so it always agrees with the Unicode version of the build; with
// NFKC the same table says whether a text is already in NFKC (every rune a
// starter with NFKC_Quick_Check Yes), and only other text goes through the
// normaliser. After warm-up it allocates nothing. [Jaccard] and [Intersection]
// merge the sorted sets without maps, switching to galloping search when
// one set is much larger than the other.
package shingle
