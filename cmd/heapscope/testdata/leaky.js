// A Node program with two planted leaks among a bounded LRU cache,
// warm-up allocations and churn. It writes three heap snapshots into the
// directory given as its argument: after a warm-up (baseline), after more
// work (target), and after as much again (final).
'use strict';
const v8 = require('v8');
const path = require('path');
const EventEmitter = require('events');
const dir = process.argv[2];

class RequestContext {
  constructor(id) {
    this.id = id;
    this.user = 'user-' + id;
    this.headers = { accept: 'text/html', id: String(id) };
  }
}
class CacheEntry {
  constructor(key) { this.key = key; this.value = new Array(16).fill(key); }
}
class LRU {
  constructor(limit) { this.limit = limit; this.map = new Map(); }
  set(key, value) {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value);
  }
}

const contexts = new Map();          // leak 1: a global map that only grows
const bus = new EventEmitter();      // leak 2: listeners that are never removed
bus.setMaxListeners(0);
const lru = new LRU(50);             // bounded: not a leak
let warm = null;                     // filled once during warm-up

function handle(i) {
  contexts.set(i, new RequestContext(i));
  bus.on('tick', function onTick() { return i; });
  lru.set('k' + i, new CacheEntry(i));
  const junk = [];                   // churn: dies at once
  for (let j = 0; j < 20; j++) junk.push({ j, s: 'tmp' + j });
  return junk.length;
}

function snapshot(name) {
  globalThis.gc && globalThis.gc();
  v8.writeHeapSnapshot(path.join(dir, name));
}

for (let i = 0; i < 300; i++) handle(i);
warm = Array.from({ length: 100 }, (_, i) => ({ warm: i }));
snapshot('baseline.heapsnapshot');
for (let i = 300; i < 600; i++) handle(i);
snapshot('target.heapsnapshot');
for (let i = 600; i < 900; i++) handle(i);
snapshot('final.heapsnapshot');
