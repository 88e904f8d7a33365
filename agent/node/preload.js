// heapscope's Node preload: loaded with NODE_OPTIONS=--require by
// `heapscope run`, it takes V8 heap snapshots of an unmodified program.
// It reads HEAPSCOPE_OUT (directory), HEAPSCOPE_AT_EXIT=1,
// HEAPSCOPE_SIGNAL (a signal name) and HEAPSCOPE_EVERY (seconds).
// Snapshots are named NNNN-PID-REASON.heapsnapshot, written to a
// temporary name and renamed when whole. Nothing here throws into the
// program: a failure is one line on stderr.
'use strict';
(function () {
  const out = process.env.HEAPSCOPE_OUT;
  if (!out) return;
  if (process.env.HEAPSCOPE_CHILDREN !== '1') {
    // Child processes inherit NODE_OPTIONS; keep them out of it.
    delete process.env.HEAPSCOPE_OUT;
  }
  const fs = require('fs');
  const path = require('path');
  const v8 = require('v8');
  let seq = 0;
  function snap(reason) {
    try {
      seq += 1;
      const name = String(seq).padStart(4, '0') + '-' + process.pid + '-' + reason + '.heapsnapshot';
      const final = path.join(out, name);
      const tmp = path.join(out, '.' + name + '.tmp');
      fs.mkdirSync(out, { recursive: true });
      v8.writeHeapSnapshot(tmp);
      fs.renameSync(tmp, final);
    } catch (e) {
      try { process.stderr.write('heapscope: snapshot failed: ' + (e && e.message) + '\n'); } catch (_) {}
    }
  }
  if (process.env.HEAPSCOPE_AT_EXIT === '1') {
    process.on('exit', () => snap('exit'));
  }
  const sig = process.env.HEAPSCOPE_SIGNAL;
  if (sig) {
    try {
      process.on(sig, () => snap('signal'));
    } catch (e) {
      process.stderr.write('heapscope: cannot handle ' + sig + ': ' + e.message + '\n');
    }
  }
  const every = parseFloat(process.env.HEAPSCOPE_EVERY || '0');
  if (every > 0) {
    setInterval(() => snap('interval'), every * 1000).unref();
  }
})();
