// Package web serves heapscope's analyses as a local web page: another
// renderer of the values package analyze computes, like package report
// for text. It computes nothing of its own: each JSON endpoint calls an
// analysis (or reads one the caller computed, such as the dominator
// tree), cuts a page out of its rows and encodes them. The page is plain
// JavaScript with no build step; its charts (the treemap of the dominator
// tree, the growth of types over snapshots) are drawn by Apache ECharts,
// embedded in the binary with its licence (see static/echarts/README.md
// for the version and why ECharts).
//
// Snapshots can hold secrets (string contents, tokens, keys), so the
// handler is meant to be bound to a loopback address. It also refuses
// requests whose Host header is not a loopback name or address, which
// defeats DNS rebinding (a page elsewhere that makes its own host name
// resolve to 127.0.0.1), unless [Options.AnyHost] is set, and it sends a
// Content-Security-Policy that allows no source but the server itself:
// no script, style, image or connection from the network.
//
// Large snapshots stay responsive because the page asks for what it
// shows: tables come in pages (offset and limit, filtered and sorted on
// the server), the dominator tree one node's children at a time, and the
// analyses that need the dominator tree run on first use, once.
//
// The server holds under load from pages it did not serve: it answers
// the API only with the token in a header or the address (the cookie
// alone comes with any page of this machine), and not to requests the
// browser says come from elsewhere (Sec-Fetch-Site, Origin); it runs at
// most Options.Workers analyses at once, gives up waiting ones when their
// client goes and tells running ones that can stop; it keeps results
// within Options.CacheBytes; and it answers at most Options.MaxResponse
// bytes, with long paths folded (runs of equal steps as one, and the
// middle of a path longer than 200 steps left out, counted).
//
// Endpoints (all GET; s is a snapshot index; id an object's index in the
// snapshot, as the page's links give it, or "root"; sel a selector as
// the command line takes it, see [analyze.ParseSelector]):
//
//	/api/snapshots                       overview of every snapshot, warnings
//	/api/snapshots/{s}/summary?retained=1   objects and bytes per type, retained sizes (paged)
//	/api/diff?a=&b=                      change per type (paged)
//	/api/diff/objects?a=&b=&type=&which=new|deleted   a row's new or deleted objects (V8; paged)
//	/api/snapshots/{s}/object/{id}       one object: dominators, shortest path
//	/api/snapshots/{s}/children/{id}     its children in the dominator tree (paged)
//	/api/snapshots/{s}/treemap/{id}      two levels below it, for the chart
//	/api/snapshots/{s}/why?sel=|type=|class=|addr=|value=|id=   merged retainer paths (paged)
//	/api/snapshots/{s}/retainers?SEL&path=0.3&depth=   one level of what holds them, grouped (paged)
//	/api/snapshots/{s}/refs?SEL&path=&depth=          one level of what they hold (paged)
//	/api/snapshots/{s}/objects?SEL       the selected objects, by retained size (paged)
//	/api/snapshots/{s}/top               what retains the most
//	/api/snapshots/{s}/types             retained size per type (paged)
//	/api/leaks?baseline=&target=&final=  the three-snapshot rule (paged)
//	/api/trend                           growth per type over all snapshots (paged)
//
// Paged endpoints take q (a case-insensitive substring of the type name),
// sort (a JSON field name of the rows), desc (1 or true), offset and
// limit, and answer {"total": N, "rows": [...]}.
package web
