package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// AdEditRates are the word-level edit rates of reposted ads, drawn
// uniformly; exact reposts are common, as on real job boards.
var AdEditRates = []float64{0, 0, 0.02, 0.05, 0.1}

const (
	adRing       = 512 // reposts copy one of the last adRing ads
	adFamilies   = 8   // templated campaigns running at the same time
	adFamilySize = 6   // mean members per campaign
)

// AdID returns the id of ad i (0-based) of n ads: "ad" and i+1 zero-padded
// to 5 digits, or more when n needs them.
func AdID(i, n int) string { return padID("ad", i+1, max(5, len(strconv.Itoa(n)))) }

// GenerateAds calls fn for each of c.Docs English-like job ads in order,
// stopping at fn's first error, which it returns. Doc.Title is the ad's
// title and Doc.Text its description. Of c, GenerateAds uses Docs, Seed and
// DupRate (the fraction of reposts, default 0.25); c.TemplateRate (default
// 0.1) is the fraction of ads from templated campaigns (one ad posted for
// several towns, sometimes with different pay); other fields are ignored.
//
// Ads come from a dozen fictional companies, each with one or two footer
// paragraphs (Doc.Boiler numbers them), a recruitment agency that posts for
// every sector, and independent employers without a footer. Reposts copy one
// of the last 512 ads with word edits at rates from AdEditRates (the title
// sometimes gains "- Urgent" or the like); 30% of reposts repost a repost,
// making chains. 3% of ads are a few words long and 0.5% have an empty
// description. Like Generate, the output depends only on c and is
// prefix-stable.
func GenerateAds(c Config, fn func(i int, d Doc) error) error {
	if c.Docs < 0 {
		return fmt.Errorf("%w: Docs %d < 0", ErrConfig, c.Docs)
	}
	dup, tmpl := c.DupRate, c.TemplateRate
	if dup == 0 {
		dup = 0.25
	}
	if tmpl == 0 {
		tmpl = 0.1
	}
	dup, tmpl = max(dup, 0), max(tmpl, 0)
	if dup+tmpl > 0.965 {
		return fmt.Errorf("%w: DupRate+TemplateRate > 0.965", ErrConfig)
	}
	g := &adGen{rng: rand.NewPCG(c.Seed, 0xad5)}
	tEmpty, tShort := p53(0.005), p53(0.035)
	tDup, tTmpl := p53(0.035+dup), p53(0.035+dup+tmpl)
	for i := 0; i < c.Docs; i++ {
		d := Doc{ID: AdID(i, c.Docs), Source: -1, Family: -1, Boiler: -1}
		switch u := g.rng.Uint64() >> 11; {
		case u < tEmpty:
			d.Kind = Empty
			d.Title, _, _ = g.render(g.newSpec())
		case u < tShort:
			d.Kind = Short
			s := g.newSpec()
			d.Title, _, _ = g.render(s)
			d.Text = g.expand(pick(g.rng, adShorts), s, rand.NewPCG(s.seed, 2), d.Title)
		case u < tDup && i > 0:
			d.Kind = Copy
			src := g.repostSource(i, &d)
			d.Source, d.Depth, d.Boiler = src.idx, src.depth+1, src.boiler
			d.EditRate = pick(g.rng, AdEditRates)
			d.Title = src.title
			if g.rng.Uint64()%5 == 0 {
				d.Title += g.expand(pick(g.rng, adTitleExtras), g.newSpec(), g.rng, "")
			}
			d.Text = g.editWords(src.text, d.EditRate)
		case u < tTmpl:
			d.Kind = Template
			f := g.family()
			s := f.spec
			s.town = intn(g.rng, len(towns))
			if g.rng.Uint64()&1 == 0 {
				s.paySeed = g.rng.Uint64()
			}
			d.Family = f.id
			d.Title, d.Text, d.Boiler = g.render(s)
		default:
			d.Kind = Original
			d.Title, d.Text, d.Boiler = g.render(g.newSpec())
		}
		g.ring[i%adRing] = adEntry{idx: i, title: d.Title, text: d.Text, depth: d.Depth, boiler: d.Boiler, kind: d.Kind}
		if err := fn(i, d); err != nil {
			return err
		}
	}
	return nil
}

type adEntry struct {
	idx         int
	title, text string
	depth       int
	boiler      int
	kind        Kind
}

// adSpec decides an ad's text: seed draws every choice except the town and
// the pay figures, so that campaigns can vary those.
type adSpec struct {
	seed, paySeed uint64
	town          int
}

type adFamily struct {
	spec adSpec
	id   int
	left int
}

type adGen struct {
	rng     *rand.PCG
	ring    [adRing]adEntry
	fams    [adFamilies]adFamily
	nextFam int
	buf     []byte
}

func (g *adGen) newSpec() adSpec {
	return adSpec{seed: g.rng.Uint64(), paySeed: g.rng.Uint64(), town: intn(g.rng, len(towns))}
}

// repostSource picks the ad a repost copies: for 30% of reposts the latest
// repost among the last 50 ads (a chain), otherwise a uniform one of the
// last adRing ads.
func (g *adGen) repostSource(i int, d *Doc) *adEntry {
	if g.rng.Uint64()%10 < 3 {
		for back := 1; back <= min(i, 50); back++ {
			if e := &g.ring[(i-back)%adRing]; e.kind == Copy {
				d.Chain = true
				return e
			}
		}
	}
	return &g.ring[(i-1-intn(g.rng, min(i, adRing)))%adRing]
}

// family returns the campaign a templated ad belongs to, starting new ones
// as old ones run out.
func (g *adGen) family() *adFamily {
	f := &g.fams[intn(g.rng, adFamilies)]
	if f.left == 0 {
		*f = adFamily{spec: g.newSpec(), id: g.nextFam, left: 2 + intn(g.rng, 2*adFamilySize-3)}
		g.nextFam++
	}
	f.left--
	return f
}

// render returns the title, description and footer id of s.
func (g *adGen) render(s adSpec) (title, text string, footer int) {
	r := rand.NewPCG(s.seed, 1)
	pay := rand.NewPCG(s.paySeed, 3)
	co, sec := -1, intn(r, len(sectors))
	footer = -1
	if x := intn(r, 10); x < 7 { // 70% from a named company
		co = intn(r, len(companies))
		if companies[co].sector >= 0 {
			sec = companies[co].sector
		}
	}
	var coName string
	if co >= 0 {
		coName = companies[co].name
		if intn(r, 10) < 8 {
			k := intn(r, len(companies[co].footers))
			footer = footerID(co, k)
		}
	} else {
		coName = pick(r, adSurnames) + pick(r, []string{" Ltd", " & Co", " Services", " and Sons", " Group"})
	}
	st := &sectors[sec]
	base := pick(r, st.titles)
	if intn(r, 6) == 0 {
		base = pick(r, adSeniority) + base
	}
	title = base
	if intn(r, 4) == 0 {
		title += " - " + towns[s.town]
	}
	vars := adVars{r: r, pay: pay, s: s, co: coName, st: st, title: base}
	b := g.buf[:0]
	add := func(tmpl string) {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		vars.used = vars.used[:0]
		b = vars.expand(b, tmpl)
	}
	add(pick(r, adIntros))
	if intn(r, 5) != 0 {
		add(pick(r, adDuties))
	}
	if intn(r, 5) != 0 {
		add(pick(r, adReqs))
	}
	if intn(r, 3) != 0 {
		add(pick(r, adOffers))
	}
	add(pick(r, adPays))
	if intn(r, 2) == 0 {
		add(pick(r, adHours))
	}
	add(pick(r, adApplies))
	if footer >= 0 {
		add(footerText(footer))
	}
	g.buf = b
	return title, fixArticles(string(b)), footer
}

// fixArticles turns "a" before a vowel into "an" ("a IT Support Technician").
func fixArticles(s string) string {
	if !strings.Contains(s, " a ") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, " a ")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+2])
		if i+3 < len(s) && strings.IndexByte("aeiouAEIOU", s[i+3]) >= 0 {
			b.WriteByte('n')
		}
		s = s[i+2:]
	}
}

// expand fills one template outside render (short ads, title extras).
func (g *adGen) expand(tmpl string, s adSpec, r *rand.PCG, title string) string {
	if title == "" {
		title = pick(r, sectors[intn(r, len(sectors))].titles)
	}
	sec := &sectors[intn(r, len(sectors))]
	v := adVars{r: r, pay: r, s: s, co: pick(r, adSurnames) + " Ltd", st: sec, title: title}
	return fixArticles(string(v.expand(nil, tmpl)))
}

func footerID(co, k int) int {
	id := 0
	for _, c := range companies[:co] {
		id += len(c.footers)
	}
	return id + k
}

func footerText(id int) string {
	for _, c := range companies {
		if id < len(c.footers) {
			return c.footers[id]
		}
		id -= len(c.footers)
	}
	panic("gen: bad footer id")
}

// adVars fills the {name} placeholders of the ad templates.
type adVars struct {
	r, pay *rand.PCG
	s      adSpec
	co     string
	st     *sector
	title  string
	lo     int
	used   []string // picks made in the current sentence, not repeated
}

// pickNew picks an element of xs not yet used in the sentence (giving up
// after a few tries on short lists).
func (v *adVars) pickNew(xs []string) string {
	var x string
	for range 8 {
		x = pick(v.r, xs)
		if !slices.Contains(v.used, x) {
			break
		}
	}
	v.used = append(v.used, x)
	return x
}

func (v *adVars) expand(dst []byte, tmpl string) []byte {
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return append(dst, tmpl...)
		}
		j := strings.IndexByte(tmpl[i:], '}') + i
		dst = append(dst, tmpl[:i]...)
		dst = v.fill(dst, tmpl[i+1:j])
		tmpl = tmpl[j+1:]
	}
}

func (v *adVars) fill(dst []byte, name string) []byte {
	r := v.r
	switch name {
	case "co":
		return append(dst, v.co...)
	case "title":
		return append(dst, v.title...)
	case "town":
		return append(dst, towns[v.s.town]...)
	case "team":
		return append(dst, v.st.team...)
	case "noun":
		return append(dst, v.st.noun...)
	case "adj":
		return append(dst, pick(r, adAdjs)...)
	case "adj2":
		return append(dst, pick(r, adAdjs2)...)
	case "contract":
		return append(dst, pick(r, adContracts)...)
	case "hours":
		return append(dst, pick(r, adHoursList)...)
	case "duty":
		return append(dst, v.pickNew(v.st.duties)...)
	case "skill":
		return append(dst, v.pickNew(v.st.skills)...)
	case "quality":
		return append(dst, v.pickNew(adQualities)...)
	case "perk":
		return append(dst, v.pickNew(adPerks)...)
	case "years":
		return strconv.AppendInt(dst, int64(1+intn(r, 5)), 10)
	case "lo":
		v.lo = 18 + intn(v.pay, 30)
		return strconv.AppendInt(dst, int64(v.lo), 10)
	case "hi":
		return strconv.AppendInt(dst, int64(max(v.lo, 18)+2+intn(v.pay, 12)), 10)
	case "rate":
		p := 1150 + 5*intn(v.pay, 200)
		return fmt.Appendf(dst, "%d.%02d", p/100, p%100)
	case "email":
		return fmt.Appendf(dst, "jobs%d@example.com", 1+intn(r, 99))
	case "ref":
		return fmt.Appendf(dst, "%c%c%04d", 'A'+intn(r, 26), 'A'+intn(r, 26), intn(r, 10000))
	case "phone":
		return fmt.Appendf(dst, "01%03d %06d", intn(r, 1000), intn(r, 1000000))
	case "day":
		return strconv.AppendInt(dst, int64(1+intn(r, 28)), 10)
	case "month":
		return append(dst, pick(r, adMonths)...)
	}
	panic("gen: unknown ad placeholder {" + name + "}")
}

// editWords returns text with each space-separated word, independently with
// probability rate, substituted (1/2), deleted (1/4) or followed by an
// inserted word (1/4), the new words coming from adFillers.
func (g *adGen) editWords(text string, rate float64) string {
	if rate <= 0 || text == "" {
		return text
	}
	t := p53(rate)
	b := g.buf[:0]
	for w := range strings.FieldsSeq(text) {
		x := g.rng.Uint64()
		if x>>11 < t {
			switch x & 3 {
			case 0, 1:
				w = pick(g.rng, adFillers)
			case 2:
				continue
			case 3:
				b = append(b, w...)
				b = append(b, ' ')
				w = pick(g.rng, adFillers)
			}
		}
		b = append(b, w...)
		b = append(b, ' ')
	}
	g.buf = b
	return strings.TrimSuffix(string(b), " ")
}

var adSurnames = []string{
	"Pennington", "Halloway", "Marsh", "Thistlewood", "Ellery", "Brampton", "Okafor", "Nowak", "Castellano",
	"Lindqvist", "Ferris", "Gallagher", "Whitlock", "Ashdown", "Moreau", "Baxendale", "Kaur", "Devlin",
}
