package analyze

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/heapscope/heapscope/heap"
)

// LeakOptions adjusts [Leaks].
type LeakOptions struct {
	// Noise is the catalogue of growth that is not a leak; nil means
	// [BuiltinNoise]. Findings that match a rule are set aside.
	Noise []NoiseRule
	// KeepNoise reports the findings that match a rule too, marked.
	KeepNoise bool
	// Scaling keeps only findings whose path held more objects in each
	// snapshot, growing from target to final by at least half as much as
	// from baseline to target (the paths of what grew inside the
	// finding's objects, when that is what grows: see [Gains].Inside).
	// For snapshots taken after equal numbers of iterations of a
	// workload (k and 2k after a warm-up), this tells a leak (growth in
	// proportion to the work) from a cache that fills once.
	Scaling bool
}

// LeakReport is the verdict of the three-snapshot rule.
type LeakReport struct {
	Runtime string       `json:"runtime"`
	Mode    IdentityMode `json:"identity"`
	// New counts the objects of the target that the baseline does not
	// have; Leaked those of them still alive in the final snapshot, and
	// LeakedBytes their shallow sizes. Without identities (IdentityNone),
	// New is the growth of the growing paths from baseline to target and
	// Leaked counts every object those paths hold in final.
	New         int    `json:"new"`
	Leaked      int    `json:"leaked"`
	LeakedBytes uint64 `json:"leaked_bytes"`
	// Findings are the causes: one per place where leaked objects
	// accumulate, what grows first (see [Verdict]), then by retained
	// size.
	Findings []LeakFinding `json:"findings"`
	// Held counts the leaked objects that other leaked objects dominate:
	// they are in the findings' retained sizes, not parts themselves.
	Held int `json:"held"`
	// Unreached counts leaked objects that no root reaches.
	Unreached int `json:"unreached"`
	// NotScaling counts the findings set aside because their growth did
	// not keep up with the work (see LeakOptions.Scaling).
	NotScaling int `json:"not_scaling,omitempty"`
	// Suppressed counts the parts of findings (and their objects) set
	// aside as known noise.
	Suppressed        int `json:"suppressed"`
	SuppressedObjects int `json:"suppressed_objects"`
	// SitesFrom is the first of the three snapshots (0 baseline, 1
	// target, 2 final) that records allocation sites, -1 when none
	// does. The leaked objects were made before target was taken: when
	// only final records sites (run's watch of the classes that grew
	// began after target, or tracing did), none of them can have one.
	SitesFrom int `json:"sites_from"`
}

// Leaks applies the three-snapshot rule (as memlab does for the web):
// the objects created between baseline and target that are still alive in
// final are leak candidates. Those no other leaked object dominates are
// grouped by the shape of the path that holds them in final (see
// [MergePaths]) into parts, and the parts into findings by the place
// where the program keeps them (see [LeakFinding]), so ten thousand
// leaked objects, and the keys, values and table of one leaked map, are
// one finding. A leaked container is reported by the leaked elements it
// holds, not as one object that dominates them (see preferElements):
// "Session x 1,000", not "(array) x 1". Each finding says how its place
// grew in each interval, what limit the snapshots show on it (see
// [Bound]) and every independent holder of its objects (see [Holder]);
// findings that grow come first (see [Verdict]). Snapshots must come
// from one process, taken in that order.
//
// Under IdentityAddress, a finding that gained objects in both intervals
// is called growing only when its place's paths hold more objects in
// final than in target by count (see turnover): a new object at a
// reused address can pass for the old one, and turnover for growth.
// With identities, a finding that gained no objects of its biggest
// part's type from target to final, or only gains that the counts
// overruled, still grows when what its objects hold does, by count
// (see grewInside): a list set once on each of the baseline's objects
// and appended to ever after is as many lists in final as in target,
// holding more.
//
// When the runtime's object identities cannot be compared (HPROF, where
// addresses move), Leaks falls back to growth per type and path signature:
// a group is a part when it grew from baseline to target and did not
// shrink back by final; Mode says so.
func Leaks(baseline, target, final *heap.Graph, opt LeakOptions) LeakReport {
	rules := opt.Noise
	if rules == nil {
		rules = BuiltinNoise
	}
	rep := LeakReport{Runtime: final.Meta().Runtime, Mode: Identify(final), SitesFrom: -1}
	for i, g := range []*heap.Graph{baseline, target, final} {
		if g.HasSites() {
			rep.SitesFrom = i
			break
		}
	}
	memo := map[*heap.Graph]snapshotPaths{}
	pathsOf := func(g *heap.Graph) snapshotPaths {
		sp, ok := memo[g]
		if !ok {
			sp = newSnapshotPaths(g)
			memo[g] = sp
		}
		return sp
	}
	fin := pathsOf(final)
	tree := fin.t
	fresh := newBitset(final.NumObjects())
	var isLeaked bitset // with identities: the leaked objects
	var groups []famGroup
	var counts [][3]int // per group, without identities: its objects in each snapshot
	var later, groupedObjs []heap.ObjectID
	if rep.Mode == IdentityNone {
		var kept []heap.ObjectID
		groups, counts, kept = growthGroups(baseline, target, final, pathsOf, &rep)
		groupedObjs = kept
		for _, id := range kept {
			fresh.set(uint32(id))
		}
	} else {
		leaked, made := survivors(baseline, target, final, rep.Mode, &rep)
		isLeaked = newBitset(final.NumObjects())
		for _, id := range leaked {
			fresh.set(uint32(id))
			isLeaked.set(uint32(id))
		}
		for _, id := range made {
			fresh.set(uint32(id))
		}
		// Group only the leaked objects no other leaked object dominates:
		// the rest are part of their retained sizes, not parts of their
		// own.
		top := withChained(tree, leaked, topOf(tree, leaked))
		top = preferElements(tree, leaked, top)
		rep.Held = len(leaked) - len(top)
		// Where the leaked objects were allocated: as final says, or else
		// as target, which had them too, does.
		groups, rep.Unreached = fin.mergeSites(top, target)
		groupedObjs = top
		// What the places gained from target to final, counted alike,
		// each where it is held: the entries made since target of a Map
		// that an object made since target holds (the Timeout and Promise
		// of an async loop's await, which hold the program's state for
		// the snapshot) are that Map's gains, not the Timeout's.
		later = preferElements(tree, made, withChained(tree, made, nearestOf(tree, made)))
	}
	members := fin.members(groups, groupedObjs)
	if opt.Scaling && rep.Mode != IdentityNone {
		sc := signatureCounts(baseline, target, groups, pathsOf)
		finCounts := map[string]map[string]int{}
		counts = make([][3]int, len(groups))
		for i, fg := range groups {
			k := fg.key()
			counts[i] = [3]int{sc[0][k], sc[1][k], countSignature(fin, fg, finCounts)}
		}
	}

	// Parts, set aside when they match a noise rule, or are held
	// through a part that an Owner rule set aside; then findings, by
	// the place of each part's sample.
	hold := newContainerIndex(final)
	owns := func(entry, v heap.ObjectID) bool { return tree.Idom(v) == entry }
	parts := make([]LeakPart, len(groups))
	noise := make([]string, len(groups))
	var owned []PathGroup
	var ownedRule []string
	for i, fg := range groups {
		grp := fg.PathGroup
		p := LeakPart{PathGroup: grp, Classes: fin.c.label(fg.fam), Types: fg.types}
		if n := len(grp.Signature); n > 0 {
			p.Type = grp.Signature[n-1].Type
		}
		if _, el := hold.holding(grp.Sample.Steps, owns); el != heap.None {
			if n := len(grp.Sample.Steps); n > 0 && el != grp.Sample.Steps[n-1].Object {
				p.Element = final.TypeName(final.Type(el))
			}
		}
		if n := len(grp.Sample.Steps); n > 0 && rep.Runtime == "v8" {
			p.Detached = HoldsDetached(final, grp.Sample.Steps[n-1].Object)
		}
		parts[i] = p
		if r := MatchNoise(rules, rep.Runtime, grp); r != nil {
			noise[i] = r.Name
			if r.Owner != "" {
				owned = append(owned, grp)
				ownedRule = append(ownedRule, r.Name)
			}
		}
	}
	for i := range groups {
		if noise[i] == "" {
			noise[i] = heldBySetAside(owned, ownedRule, groups[i].PathGroup)
		}
	}
	ci := newCauseIndex(final, fin.r, fresh, fin.c.fold)
	var causes []*cause
	byKey := map[string]*cause{}
	for i, fg := range groups {
		if noise[i] != "" {
			rep.Suppressed++
			rep.SuppressedObjects += fg.Count
			if !opt.KeepNoise {
				continue
			}
		}
		pk := ci.of(sampleTarget(fg.PathGroup))
		key := pk.key + "\x00" + noise[i]
		c := byKey[key]
		if c == nil {
			c = &cause{key: pk.key, place: pk.place, edge: pk.edge, at: pk.at, noise: noise[i]}
			byKey[key] = c
			causes = append(causes, c)
		}
		c.parts = append(c.parts, i)
	}
	// What each place gained from target to final.
	gained := map[string]map[string]int{}      // place -> type -> objects
	gainedAt := map[string][]heap.ObjectID{}   // a field's place -> the place's object of each
	gainedObjs := map[string][]heap.ObjectID{} // place -> the objects
	inside := map[string][]heap.ObjectID{}     // place -> those inside a leaked object
	for _, x := range later {
		if fin.r.Reached(x) {
			pk := ci.of(x)
			k := pk.key
			if gained[k] == nil {
				gained[k] = map[string]int{}
			}
			gained[k][final.TypeName(final.Type(x))]++
			gainedObjs[k] = append(gainedObjs[k], x)
			if pk.edge != "" { // only a field's place can be bounded per object
				gainedAt[k] = append(gainedAt[k], pk.place)
			}
			if pk.at != x && isLeaked.has(uint32(pk.at)) {
				// Below an object the place held since target: what
				// the finding's objects hold grew.
				inside[k] = append(inside[k], x)
			}
		}
	}

	clean := shortestPaths(final, PathOptions{ExtraRoots: tree.ExtraRoots()}, fresh)
	ct := newContainerIndex(target)
	var cb *containerIndex           // baseline's, made when a finding needs it
	perType := map[heap.TypeID]int{} // perObject's counts of old objects by type
	pc := newPlaceCounts(baseline, target, final, func(g *heap.Graph) (snapshotPaths, bool) {
		sp, ok := memo[g]
		return sp, ok
	})
	for _, c := range causes {
		f := LeakFinding{Noise: c.noise, key: c.key}
		// Parts biggest first; the counts are the biggest part's (a
		// Map's values rather than its keys, which may be shared
		// immutable objects other paths hold too).
		slices.SortStableFunc(c.parts, func(a, b int) int {
			if c := cmp.Compare(parts[b].Retained, parts[a].Retained); c != 0 {
				return c
			}
			return cmp.Compare(parts[b].Count, parts[a].Count)
		})
		var sum [3]int
		if counts != nil {
			sum = counts[c.parts[0]]
		}
		for _, i := range c.parts {
			p := parts[i]
			f.Parts = append(f.Parts, p)
			f.Count += p.Count
			f.Shallow += p.Shallow
			f.Retained += p.Retained
		}
		f.groups = c.parts
		if c.noise == "" && rep.Mode != IdentityNone {
			if cb == nil {
				cb = newContainerIndex(baseline)
			}
			if replacedStore(baseline, final, cb, hold, c.place, f.Parts) {
				rep.Suppressed += len(c.parts)
				rep.SuppressedObjects += f.Count
				if !opt.KeepNoise {
					continue
				}
				f.Noise = RehashNoise
			}
		}
		if counts != nil {
			f.Gains.Counts = sum[:]
		}
		if rep.Mode == IdentityNone {
			f.Gains.New = [2]int{sum[1] - sum[0], sum[2] - sum[1]}
		} else {
			// The objects of the biggest part's type: what the finding
			// mostly is (a Map's values, not its keys).
			main := f.Parts[0].Type
			n := 0
			for _, p := range f.Parts {
				if p.Type == main {
					n += p.Count
				}
			}
			f.Gains.New = [2]int{n, gained[c.key][main]}
		}
		f.Place = placeOf(final, fin.r, clean, c, f.Parts[0], fin.c.fold)
		f.Bound = lruBound(final, c.place)
		if f.Bound == nil {
			f.Bound = maxlenBound(final, c.place)
		}
		if f.Bound == nil && rep.Mode != IdentityNone {
			f.Bound = evictions(target, final, ct, hold, c.place, partTypes(f.Parts))
		}
		if f.Bound == nil && rep.Mode != IdentityNone && c.edge != "" {
			var at []heap.ObjectID
			for _, i := range c.parts {
				for _, m := range members[i] {
					at = append(at, ci.of(m).place)
				}
			}
			f.Bound = perObject(final, fresh, at, gainedAt[c.key], perType)
		}
		f.Verdict = verdictOf(f.Gains, f.Bound)
		var insideAt []famGroup // where what grew inside was counted
		if f.Verdict == Grows && rep.Mode == IdentityAddress {
			// What identity calls growth may be turnover at reused
			// addresses: the counts say.
			ps := make([]famGroup, len(c.parts))
			for j, i := range c.parts {
				ps[j] = groups[i]
			}
			if n, ok := turnover(pc, fin, f.Parts[0].Type, ps, gainedObjs[c.key]); ok {
				f.Verdict = Stopped
				f.Gains.Held = &n
			}
		}
		if f.Verdict == Stopped && len(inside[c.key]) > 0 {
			// The finding's objects may hold more, though there are
			// no more of them: the counts say.
			if in, at, ok := grewInside(pc, fin, f.Parts[0].Type, inside[c.key]); ok {
				f.Verdict = Grows
				f.Gains.Held = nil
				f.Gains.Inside = &in
				insideAt = at
			}
		}
		if opt.Scaling {
			a, b, cc := sum[0], sum[1], sum[2]
			if f.Gains.Inside != nil {
				// What grows is what the objects hold: its counts.
				a, b, cc = pc.count(0, insideAt), f.Gains.Inside.Held[0], f.Gains.Inside.Held[1]
			}
			if !(b > a && cc > b && 2*(cc-b) >= b-a) || f.Verdict == Bounded {
				rep.NotScaling++
				continue
			}
		}
		rep.Findings = append(rep.Findings, f)
	}
	rankFindings(rep.Findings)
	findHolders(&rep, fin, clean, fresh, members, ci)
	findCopies(&rep, final, fin, members)
	return rep
}

// sampleTarget is the object a group's sample path leads to.
func sampleTarget(grp PathGroup) heap.ObjectID {
	if n := len(grp.Sample.Steps); n > 0 {
		return grp.Sample.Steps[n-1].Object
	}
	return heap.None
}

// partTypes returns the types of a finding's parts.
func partTypes(ps []LeakPart) map[string]bool {
	m := map[string]bool{}
	for _, p := range ps {
		m[p.Type] = true
		if p.Element != "" {
			m[p.Element] = true
		}
	}
	return m
}

// placeOf describes cause c's place: the path to its object (a clean
// one, through no fresh object, when there is one) and where it is in
// the program's words, from that path and the biggest part's type; the
// classes of a family that fold maps are named by its pattern (see
// Place.Name).
func placeOf(g *heap.Graph, r, clean *Retainers, c *cause, biggest LeakPart, fold map[string]string) Place {
	pl := Place{Edge: c.edge}
	at := c.place
	paths := clean
	if at == heap.None {
		at, paths = c.at, r
	} else if !clean.Reached(at) {
		paths = r
	}
	pl.Path, _ = paths.Path(at)
	sig, kind, root := paths.signature(at)
	if c.place == heap.None {
		return pl
	}
	edge := c.edge
	if edge == "" {
		edge = "[*]"
	}
	sig = slices.Clone(sig)
	if name, ok := g.Name(at); ok && len(sig) >= 1 {
		sig[len(sig)-1].Name = name
		if fam, ok := foldClassName(fold, name); ok {
			pl.Name = fam
		}
	}
	sig, _ = foldSteps(fold, sig)
	// A field that holds a container of the objects: where the
	// container is ("in Array change of Object _events").
	if c.at != heap.None && c.at != sampleTarget(biggest.PathGroup) {
		sig = append(sig, SigStep{Type: g.TypeName(g.Type(c.at)), Edge: edge})
		edge = "[*]"
	}
	sig = append(sig, SigStep{Type: biggest.Type, Edge: edge})
	pl.Where = Where(PathGroup{RootKind: kind, RootName: root, Signature: sig})
	return pl
}

// findHolders sets the holders of rep's findings: each finding's
// members are the leaked objects of its parts (those no other leaked
// object dominates); a fresh object no member dominates holds members
// at its place (see causeIndex) or at another finding's.
func findHolders(rep *LeakReport, fin snapshotPaths, clean *Retainers, fresh bitset, members [][]heap.ObjectID, ci *causeIndex) {
	if len(rep.Findings) == 0 {
		return
	}
	sets := make([][]heap.ObjectID, len(rep.Findings))
	atPlace := map[string]int{}
	for fi, f := range rep.Findings {
		for _, i := range f.groups {
			sets[fi] = append(sets[fi], members[i]...)
		}
		if _, dup := atPlace[f.key]; !dup {
			atPlace[f.key] = fi
		}
	}
	hf := newHolderFinder(fin.t, fin.r, clean, fresh, sets)
	hf.placeOf = func(x heap.ObjectID) int {
		if !fin.r.Reached(x) {
			return -1
		}
		if fi, ok := atPlace[ci.of(x).key]; ok {
			return fi
		}
		return -1
	}
	for fi := range rep.Findings {
		rep.Findings[fi].Holders = hf.holders(fi, sets[fi])
	}
}

// topOf returns the members of set that no other member dominates
// ([TopMost]).
func topOf(t *DomTree, set []heap.ObjectID) []heap.ObjectID {
	top, _ := TopMost(t, set)
	return top
}

// nearestOf returns the reachable members of set whose immediate
// dominator is not a member, in ID order: those that a member dominates
// only through objects outside set are kept, unlike [TopMost]'s. An
// object of set that holds the program's older objects (a Timeout made
// since target that holds a module's context) leaves what those hold to
// them.
func nearestOf(t *DomTree, set []heap.ObjectID) []heap.ObjectID {
	in := newBitset(t.n)
	for _, x := range set {
		if int(x) < t.n && t.Reachable(x) {
			in.set(uint32(x))
		}
	}
	seen := newBitset(t.n)
	var out []heap.ObjectID
	for _, x := range set {
		if !in.has(uint32(x)) || seen.has(uint32(x)) {
			continue
		}
		seen.set(uint32(x)) // once: set may list x twice
		if p := t.Idom(x); p == SuperRoot || p == Unreachable || !in.has(uint32(p)) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// withChained returns top (the members of set that [topOf] or
// [nearestOf] chose) and with them the members that are container
// entries held by an entry of their own type in set (the nodes chained
// to a bucket's first node): they are elements of the same container,
// and with their signatures equal (see [MergePaths]) they count in the
// same finding, whose retained size already holds them.
func withChained(t *DomTree, set, top []heap.ObjectID) []heap.ObjectID {
	entry := entryTypes(t.g)
	if entry == nil {
		return top
	}
	in := newBitset(t.g.NumObjects())
	for _, x := range set {
		in.set(uint32(x))
	}
	isTop := newBitset(t.g.NumObjects())
	for _, x := range top {
		isTop.set(uint32(x))
	}
	for _, x := range set {
		ty := t.g.Type(x)
		if isTop.has(uint32(x)) || !entry[ty] {
			continue
		}
		if p := t.Idom(x); p != SuperRoot && p != Unreachable && in.has(uint32(p)) && t.g.Type(p) == ty {
			isTop.set(uint32(x)) // once: set may list x twice
			top = append(top, x)
		}
	}
	return top
}

// heldBySetAside returns the noise rule of the group in owned (groups
// set aside by an Owner rule, whose rules are rule) whose path grp's
// path extends, or "": what objects of the machinery hold is the
// machinery's too (the attribute values of the log records pytest
// keeps).
func heldBySetAside(owned []PathGroup, rule []string, grp PathGroup) string {
	for i, h := range owned {
		if h.RootKind == grp.RootKind && h.RootName == grp.RootName && len(h.Signature) < len(grp.Signature) &&
			slices.EqualFunc(h.Signature, grp.Signature[:len(h.Signature)], func(a, b SigStep) bool { return a.Type == b.Type && a.Edge == b.Edge }) {
			return rule[i]
		}
	}
	return ""
}

// survivors returns the objects of final that are new in target (absent
// from baseline) and still alive in final (the leaked ones), and those
// that target does not have (made since).
func survivors(baseline, target, final *heap.Graph, mode IdentityMode, rep *LeakReport) (leaked, made []heap.ObjectID) {
	old := NewMatcher(baseline, mode, nil).Matches(target)
	for _, o := range old {
		if !o {
			rep.New++
		}
	}
	// One index of target, its new objects marked: the objects of final
	// that match a new one are the leaked; those that match none, made
	// since.
	existed, alive := newMarkedMatcher(target, mode, func(id heap.ObjectID) bool { return !old[id] }).matchesMarked(final)
	for id, a := range alive {
		switch {
		case a:
			leaked = append(leaked, heap.ObjectID(id))
			rep.LeakedBytes += final.Size(heap.ObjectID(id))
		case !existed[id]:
			made = append(made, heap.ObjectID(id))
		}
	}
	rep.Leaked = len(leaked)
	return leaked, made
}

// famGroup is a path group of the objects of one class family (see
// [classIndex]), or of no family when fam is "".
type famGroup struct {
	PathGroup
	fam string
	// types, when not 0, is how many types the group sums: the instances
	// of the classes of a large family (see classIndex.fold), whose
	// pattern its signature names.
	types int
}

// key is the group's identity across snapshots.
func (fg famGroup) key() string { return signatureKey(fg.PathGroup) + "\x00" + fg.fam }

// signatureKey is a group's identity across snapshots.
func signatureKey(grp PathGroup) string {
	var b strings.Builder
	b.WriteString(grp.RootKind.String())
	b.WriteByte(0)
	b.WriteString(grp.RootName)
	for _, s := range grp.Signature {
		b.WriteByte(0)
		b.WriteString(s.Type)
		b.WriteByte(2)
		b.WriteString(s.Name)
		b.WriteByte(1)
		b.WriteString(s.Edge)
	}
	return b.String()
}

// growthGroups is the fallback without identities: for every type whose
// count grew from baseline to target and did not fall back by final, it
// groups the type's objects by path in each snapshot and keeps the groups
// that grew and stayed. It returns the groups, how many objects each
// group's path held in baseline, target and final, and the objects of
// final those paths hold (the leaked ones).
//
// The instances of the classes of a large family (see classIndex.fold)
// are counted as one type in all three snapshots, under the family's
// pattern, whichever snapshot has eight names of it: a class per
// plugin loader (Task$$Lambda$102/0x..., a new name in each loader) is
// a new type in every snapshot, so by its own name none grows from
// target to final, and the registry that holds one instance per loader
// would read as stopped growing.
func growthGroups(baseline, target, final *heap.Graph, pathsOf func(*heap.Graph) snapshotPaths, rep *LeakReport) ([]famGroup, [][3]int, []heap.ObjectID) {
	fin := pathsOf(final)
	paths, tree := fin.r, fin.t
	shareFolds(pathsOf(baseline).c, pathsOf(target).c, fin.c)
	cb, ct, cf := typeCounts(baseline, fin.c.fold), typeCounts(target, fin.c.fold), typeCounts(final, fin.c.fold)
	var types []string
	for name, n := range ct {
		if n > cb[name] && cf[name] >= n {
			types = append(types, name)
		}
	}
	slices.Sort(types)
	counts := func(g *heap.Graph, sp snapshotPaths) map[string]int {
		m := map[string]int{}
		byType := objectsOfTypes(g, types, sp.c.fold)
		for _, name := range types {
			sp.count(byType[name], m)
		}
		return m
	}
	gb := counts(baseline, pathsOf(baseline))
	gt := counts(target, pathsOf(target))
	// In final, the objects whose path grew and stayed are the leaked
	// ones; as with identities, group only those no other leaked object
	// dominates.
	cfin := map[string]int{}
	var leaked []heap.ObjectID
	byType := objectsOfTypes(final, types, fin.c.fold)
	for _, name := range types {
		for _, id := range byType[name] {
			if !paths.Reached(id) {
				continue
			}
			k := fin.objectKey(id)
			cfin[k]++
			if gt[k] > gb[k] {
				leaked = append(leaked, id)
			}
		}
	}
	var kept []heap.ObjectID
	for _, id := range leaked {
		k := fin.objectKey(id)
		if cfin[k] >= gt[k] {
			kept = append(kept, id)
			rep.Leaked++
			rep.LeakedBytes += final.Size(id)
		}
	}
	for k, n := range gt {
		if n > gb[k] && cfin[k] >= n {
			rep.New += n - gb[k]
		}
	}
	top := withChained(tree, kept, topOf(tree, kept))
	top = preferElements(tree, kept, top)
	rep.Held = len(kept) - len(top)
	groups, _ := fin.merge(top)
	per := make([][3]int, len(groups))
	for i, grp := range groups {
		k := grp.key()
		per[i] = [3]int{gb[k], gt[k], cfin[k]}
	}
	return groups, per, kept
}

// typeCounts counts g's objects per type name, the instances of the
// classes fold maps summed under their family's pattern.
func typeCounts(g *heap.Graph, fold map[string]string) map[string]int {
	m := map[string]int{}
	for _, s := range Summary(g) {
		name := s.Type
		if p, ok := fold[name]; ok {
			name = p
		}
		m[name] += s.Count
	}
	return m
}

// shareFolds gives each of cs the folds of all of them, so that the
// instances of one family's classes are summed alike in every snapshot
// (a family folded in final may have fewer than minFoldNames names in
// the baseline).
func shareFolds(cs ...*classIndex) {
	all := map[string]string{}
	for _, c := range cs {
		maps.Copy(all, c.fold)
	}
	for _, c := range cs {
		maps.Copy(c.fold, all)
	}
}

// objectsOfTypes returns, for each named type (names sorted), its
// objects in ID order; under a name that is a pattern of fold (see
// classIndex.fold, nil for none), the objects of the types it sums.
func objectsOfTypes(g *heap.Graph, names []string, fold map[string]string) map[string][]heap.ObjectID {
	want := map[heap.TypeID]string{}
	for t := 0; t < g.NumTypes(); t++ {
		name := g.TypeName(heap.TypeID(t))
		if _, ok := slices.BinarySearch(names, name); ok {
			want[heap.TypeID(t)] = name
		} else if p, ok := fold[name]; ok {
			if _, ok := slices.BinarySearch(names, p); ok {
				want[heap.TypeID(t)] = p
			}
		}
	}
	out := map[string][]heap.ObjectID{}
	for id, t := range g.Types() {
		if name, ok := want[t]; ok {
			out[name] = append(out[name], heap.ObjectID(id))
		}
	}
	return out
}

// signatureCounts counts, in baseline and in target, the objects of the
// groups' types held by each path signature.
func signatureCounts(baseline, target *heap.Graph, groups []famGroup, pathsOf func(*heap.Graph) snapshotPaths) [2]map[string]int {
	var types []string
	for _, grp := range groups {
		if n := len(grp.Signature); n > 0 {
			types = append(types, grp.Signature[n-1].Type)
		}
	}
	slices.Sort(types)
	types = slices.Compact(types)
	var out [2]map[string]int
	for i, g := range []*heap.Graph{baseline, target} {
		out[i] = map[string]int{}
		sp := pathsOf(g)
		byType := objectsOfTypes(g, types, sp.c.fold)
		for _, name := range types {
			sp.count(byType[name], out[i])
		}
	}
	return out
}

// countSignature counts the objects of fg's type (and class family) in
// sp's snapshot that fg's path signature holds. memo keeps the counts of
// each type's groups (see snapshotPaths.count) for the next call.
func countSignature(sp snapshotPaths, fg famGroup, memo map[string]map[string]int) int {
	n := len(fg.Signature)
	if n == 0 {
		return 0
	}
	name := fg.Signature[n-1].Type
	m, ok := memo[name]
	if !ok {
		m = map[string]int{}
		sp.count(objectsOfTypes(sp.r.g, []string{name}, sp.c.fold)[name], m)
		memo[name] = m
	}
	return m[fg.key()]
}
