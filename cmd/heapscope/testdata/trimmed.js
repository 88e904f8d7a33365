// A Node program with one leak (a Map of request contexts that only
// grows) and a cache that code trims to its 500 newest entries, still
// filling at the baseline and full by the final snapshot. It writes
// baseline, target and final heap snapshots 300 requests apart into the
// directory given as its argument.
'use strict';
const v8 = require('v8');
const path = require('path');
const dir = process.argv[2];

class RequestContext {
  constructor(id) { this.id = id; this.user = 'user-' + id; }
}
class Rendered {
  constructor(id) { this.id = id; this.html = '<p>' + id + '</p>'; }
}
const contexts = new Map();   // the leak
const pages = new Map();      // a cache, trimmed to 500 entries
function handle(i) {
  contexts.set(i, new RequestContext(i));
  pages.set('page' + i, new Rendered(i));
  while (pages.size > 500) pages.delete(pages.keys().next().value);
}
function snapshot(name) {
  globalThis.gc && globalThis.gc();
  v8.writeHeapSnapshot(path.join(dir, name + '.heapsnapshot'));
}
let n = 0;
for (const name of ['baseline', 'target', 'final']) {
  for (const end = n + (name === 'baseline' ? 100 : 300); n < end; n++) handle(n);
  snapshot(name);
}
