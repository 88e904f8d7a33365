// A Node program that writes its heap snapshots while V8 itself holds
// the objects it is working on, as it does when a snapshot is written
// under load with an optimizing compiler job in flight: the job's local
// handles ("(Handle scope)") and its identity map (the second "(Strong
// roots)") hold objects one step below the GC roots, nearer than the
// program's own path to them. The program holds 100 Items in a Map
// that its functions share (a module context, on the stack while the
// module runs). It writes into the directory given as its argument:
//
//   handles.heapsnapshot   from a replacer that JSON.stringify calls
//                          after the Map: its handles still hold the Map
//   identity.heapsnapshot  from a getter that v8.serialize calls after
//                          the Map: its identity map holds every Item
'use strict';
const v8 = require('v8');
const path = require('path');
const dir = process.argv[2];

class Item {
  constructor(i) { this.i = i; }
}
const held = new Map();
function add(i) { held.set(i, new Item(i)); }
for (let i = 0; i < 100; i++) add(i);

JSON.stringify([held, 'after'], function (key, value) {
  if (key === '1') v8.writeHeapSnapshot(path.join(dir, 'handles.heapsnapshot'));
  return value;
});
v8.serialize([held, {
  get after() {
    v8.writeHeapSnapshot(path.join(dir, 'identity.heapsnapshot'));
    return 1;
  },
}]);
