// chain.js N OUT: a heap whose objects a hostile page would ask about:
// a linked list of N nodes of three alternating classes (no run of equal
// steps folds: a path to its end has N steps), each with a string value
// of its own ("node-17"), held by one global; the V8 snapshot goes to
// OUT.
const v8 = require('v8');
const n = Number(process.argv[2] || 700000);
const out = process.argv[3] || 'chain.heapsnapshot';
class A { constructor(i) { this.label = 'node-' + i; this.next = null; } }
class B { constructor(i) { this.label = 'node-' + i; this.next = null; } }
class C { constructor(i) { this.label = 'node-' + i; this.next = null; } }
const kinds = [A, B, C];
globalThis.head = new A(0);
let at = globalThis.head;
for (let i = 1; i < n; i++) {
  const x = new kinds[i % 3](i);
  at.next = x;
  at = x;
}
v8.writeHeapSnapshot(out);
console.log(out);
