package heap

// SiteID is the index of an allocation site in a [Graph]'s site table.
// Site 0 is [NoSite]: where an object was allocated is not known.
type SiteID uint32

// NoSite is the site of objects whose allocation was not recorded.
const NoSite SiteID = 0

// Frame is one frame of an allocation stack: the function (when the
// runtime records it; tracemalloc does not), the file, and the 1-based
// line and column (0 when not known). For V8 the line and column are
// where the function starts, as V8's allocation tracker records
// functions, not lines.
type Frame struct {
	Function StringID
	File     StringID
	Line     uint32
	Column   uint32
}

// The site table is a tree, as a profiler's call tree is: a site is its
// innermost frame and the site of its caller (its parent), down to an
// outermost frame whose parent is NoSite. Runtimes that record stacks of
// N frames (tracemalloc, V8's allocation tracker) share the callers of
// their sites this way.

// HasSites reports whether the snapshot records where its objects were
// allocated (tracemalloc for Python, V8's allocation tracking).
func (g *Graph) HasSites() bool { return g.site != nil }

// Site returns the allocation site of the object, or NoSite.
func (g *Graph) Site(id ObjectID) SiteID {
	if g.site == nil {
		return NoSite
	}
	return g.site[id]
}

// NumSites returns the size of the site table, NoSite included, or 0
// when the snapshot has no sites.
func (g *Graph) NumSites() int { return len(g.siteFrame) }

// SiteFrame returns the innermost frame of site s (the zero Frame for
// NoSite).
func (g *Graph) SiteFrame(s SiteID) Frame {
	if int(s) >= len(g.siteFrame) {
		return Frame{}
	}
	return g.siteFrame[s]
}

// SiteParent returns the site of the caller of s's innermost frame, or
// NoSite.
func (g *Graph) SiteParent(s SiteID) SiteID {
	if int(s) >= len(g.sitePar) {
		return NoSite
	}
	return g.sitePar[s]
}

// Stack returns the frames of site s, innermost first, at most max of
// them (all when max <= 0).
func (g *Graph) Stack(s SiteID, max int) []Frame {
	var out []Frame
	for s != NoSite && (max <= 0 || len(out) < max) {
		out = append(out, g.SiteFrame(s))
		s = g.SiteParent(s)
	}
	return out
}

// AddSite appends a site whose innermost frame is f and whose caller is
// site parent, and returns its ID. parent must be a site added before
// (or NoSite); a reader checks that, and [Graph.Validate] does again.
func (b *Builder) AddSite(parent SiteID, f Frame) SiteID {
	if b.siteFrame == nil {
		b.siteFrame = []Frame{{}}
		b.sitePar = []SiteID{NoSite}
	}
	b.siteFrame = append(b.siteFrame, f)
	b.sitePar = append(b.sitePar, parent)
	return SiteID(len(b.siteFrame) - 1)
}

// NumSites returns the number of sites added so far, NoSite included.
func (b *Builder) NumSites() int {
	if b.siteFrame == nil {
		return 1
	}
	return len(b.siteFrame)
}

// SetSite records where object id was allocated.
func (b *Builder) SetSite(id ObjectID, s SiteID) {
	b.site = setAt(b.site, cap(b.typ), id, s)
}

// SiteAt records the site of the object at address addr, resolved when
// the graph is built (sites of unknown addresses are dropped). Only for
// builders whose Targets is ByAddress.
func (b *Builder) SiteAt(addr uint64, s SiteID) {
	b.siteAt = append(b.siteAt, addr)
	b.siteAtID = append(b.siteAtID, s)
}
