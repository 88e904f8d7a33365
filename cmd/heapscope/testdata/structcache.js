// structcache.js BASELINE TARGET FINAL: a small compiler that lowers
// records to struct types and keeps them in a table declared up front,
// a Map keyed by the record object. Its code generator passes copies of
// the records ({...rec}), so every lookup misses and the compiler builds
// the same StructType again for every function: 15 records, 588
// functions in three rounds of 196, a heap snapshot with numeric values
// after each round; 15 struct types in the table, 588 more in the
// functions. It prints what its own equality (same packing, same element
// kinds) says of them as JSON.
'use strict';
const v8 = require('v8');

class Kind {
  constructor(name, bits) { this.name = name; this.bits = bits; }
}
class StructType {
  constructor(elements, align) { this.elements = elements; this.align = align; }
  equals(o) { return this.align === o.align && this.elements.length === o.elements.length && this.elements.every((e, i) => e === o.elements[i]); }
}
class Fn {
  constructor(name, arg) { this.name = name; this.arg = arg; }
}

const KINDS = {};
for (const [k, bits] of [['i8', 8], ['i32', 32], ['i64', 64], ['f32', 32], ['f64', 64]]) KINDS[k] = new Kind(k, bits);

class Context {
  constructor() { this.declared = new Map(); }
  declare(rec) { this.declared.set(rec, this.build(rec)); }
  structType(rec) { return this.declared.get(rec) || this.build(rec); } // a copy misses
  build(rec) { return new StructType(rec.kinds.map((k) => KINDS[k]), rec.align); }
}

const ctx = new Context();
const recs = [];
const kinds = Object.keys(KINDS);
for (let i = 0; i < 15; i++) {
  const ks = [];
  for (let j = 0; j < 2 + (i % 4); j++) ks.push(kinds[(i + j) % kinds.length]);
  const rec = { name: 'R' + i, kinds: ks, align: [1, 4, 8][Math.floor(i / 5)] };
  recs.push(rec);
  ctx.declare(rec);
}
const module_ = [];
globalThis.compiled = module_;
globalThis.ctx = ctx;
let k = 0;
for (const path of process.argv.slice(2)) {
  for (let n = 0; n < 196; n++, k++) {
    const rec = { ...recs[k % recs.length] };
    module_.push(new Fn('fn' + k, ctx.structType(rec)));
  }
  v8.writeHeapSnapshot(path, { exposeNumericValues: true });
}
const distinct = [];
for (const t of [...module_.map((f) => f.arg), ...ctx.declared.values()]) {
  if (!distinct.some((d) => d.equals(t))) distinct.push(t);
}
console.log(JSON.stringify({ structs: module_.length, distinct: distinct.length, cached: ctx.declared.size }));
