// Prints memlab's retained size for V8 node ids, one "id retained" line
// each: node retained.js MEMLAB_DIR SNAPSHOT ID...
'use strict';
const path = require('path');
const [ml, file, ...ids] = process.argv.slice(2);
const { getFullHeapFromFile } = require(path.join(ml, 'node_modules', '@memlab', 'heap-analysis'));
getFullHeapFromFile(file).then((heap) => {
  for (const id of ids) {
    const n = heap.getNodeById(Number(id));
    console.log(id + ' ' + (n ? n.retainedSize : -1));
  }
});
