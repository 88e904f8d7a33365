// gen.js SIZE_MB OUT [N]: builds a heap whose snapshot is about SIZE_MB
// megabytes (a catalog, customers with orders, a bounded LRU cache, and
// two planted leaks: a global map of request contexts and listeners that
// are never removed) and writes its snapshot to OUT. With N > 1 it then
// serves requests (each leaks its context, every tenth a listener; the
// cache and temporary objects churn) and writes N snapshots, before the
// first batch and after each, as OUT-1.heapsnapshot ... OUT-N (OUT
// without its .heapsnapshot): a baseline, a target and a final for
// leaks, each about SIZE_MB.
const v8 = require('v8');
const { EventEmitter } = require('events');
const sizeMB = Number(process.argv[2] || 500);
const out = process.argv[3] || 'big.heapsnapshot';
const snapshots = Number(process.argv[4] || 1);
// About 7.6 MB of snapshot per 1000 units on Node 20 (measured), plus
// about 4 MB for Node itself.
const units = Math.max(1, Math.round((sizeMB - 4) * 1000 / 7.6));

class Product { constructor(i) { this.sku = 'sku-' + i; this.price = i * 0.25; this.tags = ['t' + (i % 7), 't' + (i % 11)]; } }
class Customer { constructor(i) { this.id = i; this.name = 'customer-' + i; this.orders = []; } }
class Order { constructor(i, c, p) { this.id = i; this.customer = c; this.product = p; this.qty = i % 5; } }
class RequestContext { constructor(i) { this.url = '/api/item/' + i; this.headers = { a: 'x' + i, b: i }; this.started = Date.now(); } }
class LRU {
  constructor(max) { this.max = max; this.map = new Map(); }
  get(k) { const v = this.map.get(k); if (v !== undefined) { this.map.delete(k); this.map.set(k, v); } return v; }
  set(k, v) { this.map.set(k, v); if (this.map.size > this.max) this.map.delete(this.map.keys().next().value); }
}
globalThis.catalog = new Map();
globalThis.customers = [];
globalThis.lru = new LRU(1000);
globalThis.requests = new Map();          // leak 1: never cleared
globalThis.bus = new EventEmitter();      // leak 2: listeners never removed
globalThis.bus.setMaxListeners(0);
for (let u = 0; u < units; u++) {
  for (let k = 0; k < 10; k++) {
    const i = u * 10 + k;
    if (k === 0) globalThis.catalog.set('sku-' + i, new Product(i));
    const c = new Customer(i);
    for (let j = 0; j < 2; j++) c.orders.push(new Order(i * 2 + j, c, globalThis.catalog.get('sku-' + (u * 10))));
    globalThis.customers.push(c);
    globalThis.lru.set(i, { v: i });
    if (k < 3) globalThis.requests.set(i, new RequestContext(i));
    if (k === 5) globalThis.bus.on('evt', function onEvt() { return i; });
  }
}
if (snapshots <= 1) {
  console.log(v8.writeHeapSnapshot(out));
} else {
  // Each batch of requests adds about 2% to the heap, all of it leaked.
  const batch = Math.max(1000, Math.round(units * 10 * 0.02 / 3));
  let next = units * 10;
  for (let s = 1; s <= snapshots; s++) {
    if (s > 1) {
      for (let k = 0; k < batch; k++, next++) {
        globalThis.requests.set(next, new RequestContext(next));
        if (k % 10 === 0) { const i = next; globalThis.bus.on('evt', function onEvt() { return i; }); }
        globalThis.lru.set(next, { v: next });
        JSON.stringify({ id: next, tmp: ['x' + next] }); // garbage
      }
    }
    console.log(v8.writeHeapSnapshot(out.replace(/\.heapsnapshot$/, '') + '-' + s + '.heapsnapshot'));
  }
}
