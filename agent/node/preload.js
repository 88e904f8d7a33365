// heapscope's Node preload: loaded with NODE_OPTIONS=--require by
// `heapscope run`, it takes V8 heap snapshots of an unmodified program.
// It reads HEAPSCOPE_OUT (directory), HEAPSCOPE_AT_EXIT=1,
// HEAPSCOPE_SIGNAL (a signal name), HEAPSCOPE_EVERY (seconds) and
// HEAPSCOPE_VALUES=0 (no string contents). Snapshots are named
// NNNN-PID-REASON.heapsnapshot, written (mode 0600, into a directory it
// makes 0700) to a temporary name and renamed when whole. Nothing here
// throws into the program: a failure is one line on stderr.
//
// With HEAPSCOPE_VALUES=0 the snapshot is taken through an in-process
// inspector session, whose chunks arrive synchronously (so it works in
// an exit handler), and goes through newRedactor on its way to the file:
// no string contents are ever written. The rules are those of heapscope's
// Go inspector.Redact, which a test holds this copy to, byte for byte.
'use strict';

const REDACT_VALUE = 1; // node kinds, by V8 node type
const REDACT_CODE = 2;
// States of a numbers array: before '[', before the first number, after
// a comma, in a number, after a number.
const N_OPEN = 0, N_FIRST = 1, N_ITEM = 2, N_NUM = 3, N_AFTER = 4;
const F_IDENT = 1, F_VALUE = 2, F_EDGE = 4, F_INTERNAL = 8, F_CODE = 16;
const EPHEMERON = /^("\d+ \/ part of key \()(.*)( @\d+\) -> value \()(.*)( @\d+\) pair in WeakMap \(table @\d+\)")$/;

// grow returns a typed array like a, with room for index n.
function grow(a, n) {
  if (n < a.length) return a;
  const b = new a.constructor(Math.max(n + 1, a.length * 2));
  b.set(a);
  return b;
}

// newRedactor returns {feed(text), end()}: feed takes the snapshot's
// JSON text in pieces of any size and passes it to write with the string
// contents replaced; end throws if the text was not a whole snapshot.
// Both throw an Error on text they do not understand.
function newRedactor(write) {
  let top = 'open';          // where in the top-level object
  let section = '';          // the key whose value is being read
  let mode = '';             // 'value', 'numbers', 'strings'
  let depth = 0, inStr = false, esc = false, scalar = false;
  let key = '', keyBuf = null, metaBuf = null;
  let nf = 0, fType = -1, fName = -1, fCount = -1, ef = 0, eType = -1, eName = -1, eTo = -1;
  let tf = 0, tName = -1, tScript = -1;
  let nodeKind = [], edgeNamed = [], edgeInternal = [];
  let kind = new Uint8Array(1024), name = new Uint32Array(1024), count = new Uint32Array(1024);
  let nodes = 0, refs = 0, flags = new Uint8Array(1024), nflags = 0;
  let have = {};
  // numbers
  let nstate = 0, num = 0, vals = [], k = 0, handler = null;
  let src = 0, left = 0;
  // strings
  let sstate = 'open', sIndex = 0, sAct = '', sRaw = '';
  let out = [], outLen = 0;

  function emit(s) {
    if (!s) return;
    out.push(s);
    outLen += s.length;
    if (outLen >= 1 << 20) flush();
  }
  function flush() {
    if (out.length) write(out.join(''));
    out = [];
    outLen = 0;
  }
  function fail(msg) { throw new Error('redact: ' + msg); }

  function use(i, f) {
    if (i > 2 * refs + 65536) fail('string index ' + i + ' out of range');
    flags = grow(flags, i);
    if (i >= nflags) nflags = i + 1;
    flags[i] |= f;
  }
  function meta(raw) {
    let s;
    try { s = JSON.parse(raw); } catch (e) { fail('snapshot: ' + e.message); }
    const m = (s && s.meta) || {};
    const nfs = m.node_fields || [], efs = m.edge_fields || [];
    nf = nfs.length; fType = nfs.indexOf('type'); fName = nfs.indexOf('name'); fCount = nfs.indexOf('edge_count');
    ef = efs.length; eType = efs.indexOf('type'); eName = efs.indexOf('name_or_index'); eTo = efs.indexOf('to_node');
    let tfs = m.trace_function_info_fields || [];
    if (tfs.length === 0) tfs = ['function_id', 'name', 'script_name', 'script_id', 'line', 'column'];
    tf = tfs.length; tName = tfs.indexOf('name'); tScript = tfs.indexOf('script_name');
    const nts = m.node_types || [], ets = m.edge_types || [];
    if (fType < 0 || fName < 0 || fCount < 0 || eType < 0 || eName < 0 || eTo < 0 ||
        nts.length <= fType || ets.length <= eType) fail('snapshot.meta lacks the fields of nodes and edges');
    if (!Array.isArray(nts[fType]) || !Array.isArray(ets[eType])) fail('snapshot.meta: node or edge types are not a list of names');
    nodeKind = nts[fType].map((t) => {
      switch (t) {
        case 'string': case 'concatenated string': case 'sliced string':
        case 'regexp': case 'number': case 'bigint': return REDACT_VALUE;
        case 'code': case 'object shape': return REDACT_CODE;
        default: return 0;
      }
    });
    edgeNamed = ets[eType].map((t) => t !== 'element' && t !== 'hidden');
    edgeInternal = ets[eType].map((t) => t === 'internal');
    have.meta = true;
  }
  function node(v) {
    const t = v[fType];
    const kd = t < nodeKind.length ? nodeKind[t] : REDACT_VALUE;
    if (v[fName] > 0xffffffff || v[fCount] > 0xffffffff) fail('node name or edge count out of range');
    kind = grow(kind, nodes); name = grow(name, nodes); count = grow(count, nodes + 1);
    kind[nodes] = kd; name[nodes] = v[fName]; count[nodes] = v[fCount];
    nodes++;
    refs++;
    use(v[fName], kd === REDACT_VALUE ? F_VALUE : F_IDENT);
  }
  function edge(v) {
    while (left === 0) {
      src++;
      if (src >= nodes) fail("more edges than the nodes' edge counts");
      left = count[src];
    }
    left--;
    refs++;
    const t = v[eType];
    if (t >= edgeNamed.length) fail('edge type ' + t + ' out of range');
    const to = v[eTo];
    if (to % nf !== 0 || to / nf >= nodes) fail('to_node ' + to + ' is not a node');
    const dst = to / nf;
    if (kind[src] === REDACT_CODE && kind[dst] === REDACT_VALUE) use(name[dst], F_CODE);
    if (!edgeNamed[t]) return;
    use(v[eName], edgeInternal[t] ? F_EDGE | F_INTERNAL : F_EDGE);
  }
  function traceFunction(v) {
    use(v[tName], F_IDENT);
    use(v[tScript], F_IDENT);
  }
  function keep(i) {
    if (i === 0) return true;
    if (i >= nflags) return false;
    const f = flags[i];
    return (f & F_IDENT) !== 0 || ((f & F_EDGE) !== 0 && ((f & F_VALUE) === 0 || (f & F_CODE) !== 0));
  }
  function scrub(raw) {
    const m = EPHEMERON.exec(raw);
    return m ? m[1] + m[3] + m[5] : raw;
  }
  function startSection() {
    switch (section) {
      case 'nodes':
        if (!have.meta || have.nodes) fail('"nodes" before "snapshot", or twice');
        have.nodes = true; mode = 'numbers'; nstate = N_OPEN; handler = node; vals = new Array(nf); k = 0;
        if (nf <= 0) fail('no fields');
        return;
      case 'edges':
        if (!have.nodes || have.edges) fail('"edges" before "nodes", or twice');
        have.edges = true; mode = 'numbers'; nstate = N_OPEN; handler = edge; vals = new Array(ef); k = 0;
        if (ef <= 0) fail('no fields');
        src = 0; left = nodes > 0 ? count[0] : 0;
        return;
      case 'trace_function_infos':
        if (!have.edges || have.strings || tName < 0 || tScript < 0) fail('"trace_function_infos" out of order, or without its fields');
        mode = 'numbers'; nstate = N_OPEN; handler = traceFunction; vals = new Array(tf); k = 0;
        if (tf <= 0) fail('no fields');
        return;
      case 'strings':
        if (!have.edges || have.strings) fail('"strings" before "edges", or twice');
        have.strings = true; mode = 'strings'; sstate = 'open'; sIndex = 0;
        return;
    }
    mode = 'value'; depth = 0; inStr = false; esc = false; scalar = false;
    metaBuf = section === 'snapshot' ? [] : null;
  }

  // feed is the scanner. Text is copied from `from` onward, except the
  // string literals that are replaced; a chunk that starts inside one is
  // not copied up to its end.
  function feed(chunk) {
    const n = chunk.length;
    let from = mode === 'strings' && sstate === 'in' && sAct !== 'copy' ? n : 0;
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (top === 'done') { emit(chunk.slice(from, i)); return; }
      if (top === 'open') {
        if (c === 0x7b) top = 'key'; // {
        else if (!isSpace(c)) fail('found ' + chunk[i] + ", want '{'");
        continue;
      }
      if (top === 'key') {
        if (keyBuf !== null) {
          keyBuf.push(chunk[i]);
          if (esc) esc = false;
          else if (c === 0x5c) esc = true;
          else if (c === 0x22) {
            try { key = JSON.parse(keyBuf.join('')); } catch (e) { fail('bad key'); }
            keyBuf = null; top = 'colon';
          }
          continue;
        }
        if (c === 0x22) { keyBuf = ['"']; esc = false; }
        else if (c === 0x7d) { top = 'done'; emit(chunk.slice(from, i + 1)); from = n; }
        else if (!isSpace(c) && c !== 0x2c) fail('found ' + chunk[i] + ', want a key');
        continue;
      }
      if (top === 'colon') {
        if (c === 0x3a) { top = 'value'; section = key; startSection(); }
        else if (!isSpace(c)) fail('found ' + chunk[i] + ", want ':'");
        continue;
      }
      // top === 'value'
      if (mode === 'value') {
        if (metaBuf !== null) {
          metaBuf.push(chunk[i]);
          if (metaBuf.length > 1 << 20) fail('a value longer than 1048576 bytes');
        }
        if (inStr) {
          if (esc) esc = false;
          else if (c === 0x5c) esc = true;
          else if (c === 0x22) { inStr = false; if (depth === 0) endValue(); }
          continue;
        }
        if (isSpace(c) && depth === 0 && !scalar) continue;
        if (c === 0x22) { inStr = true; continue; }
        if (c === 0x7b || c === 0x5b) { depth++; continue; }
        if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth < 0) { if (metaBuf) metaBuf.pop(); endValue(); top = 'done'; emit(chunk.slice(from, i + 1)); from = n; continue; }
          if (depth === 0) endValue();
          continue;
        }
        if (c === 0x2c && depth === 0) { if (metaBuf) metaBuf.pop(); endValue(); continue; }
        if (depth === 0) scalar = true;
        continue;
      }
      if (mode === 'numbers') {
        if (nstate === N_OPEN) {
          if (c === 0x5b) nstate = N_FIRST;
          else if (!isSpace(c)) fail('found ' + chunk[i] + ", want '['");
          continue;
        }
        // The numbers are most of a snapshot: a tight loop to the ']'.
        for (; i < n; i++) {
          const ch = chunk.charCodeAt(i);
          if (ch >= 0x30 && ch <= 0x39) {
            if (nstate !== N_NUM) {
              if (nstate === N_AFTER) fail("found a number, want ',' or ']'");
              nstate = N_NUM;
              num = 0;
            }
            num = num * 10 + (ch - 0x30);
            if (num > Number.MAX_SAFE_INTEGER) fail('number out of range');
            continue;
          }
          if (nstate === N_NUM) {
            vals[k++] = num;
            if (k === vals.length) { handler(vals); k = 0; }
            nstate = N_AFTER;
          }
          if (ch === 0x2c) {
            if (nstate !== N_AFTER) fail("found ',', want a number");
            nstate = N_ITEM;
          } else if (ch === 0x5d) {
            if (nstate === N_ITEM) fail("found ']', want a number");
            if (k !== 0) fail(k + ' numbers left over');
            top = 'key';
            break;
          } else if (!isSpace(ch)) {
            fail('found ' + chunk[i] + ' in the numbers');
          }
        }
        continue;
      }
      // mode === 'strings'
      if (sstate === 'open') {
        if (c === 0x5b) sstate = 'item';
        else if (!isSpace(c)) fail('found ' + chunk[i] + ", want '['");
        continue;
      }
      if (sstate === 'in') {
        if (sAct === 'scrub') sRaw += chunk[i];
        if (esc) { esc = false; continue; }
        if (c === 0x5c) { esc = true; continue; }
        if (c !== 0x22) continue;
        sstate = 'after';
        if (sAct === 'drop') { emit('"[redacted #' + sIndex + ']"'); from = i + 1; }
        else if (sAct === 'scrub') { emit(scrub(sRaw)); from = i + 1; }
        sIndex++;
        continue;
      }
      if (isSpace(c)) continue;
      if (sstate === 'item' && c === 0x22) {
        sstate = 'in'; esc = false;
        if (!keep(sIndex)) sAct = 'drop';
        else if (sIndex < nflags && (flags[sIndex] & F_INTERNAL) !== 0) { sAct = 'scrub'; sRaw = '"'; }
        else sAct = 'copy';
        if (sAct !== 'copy') { emit(chunk.slice(from, i)); from = n; }
        continue;
      }
      if (sstate === 'item' && c === 0x5d && sIndex === 0) { top = 'key'; continue; }
      if (sstate === 'after' && c === 0x2c) { sstate = 'item'; continue; }
      if (sstate === 'after' && c === 0x5d) { top = 'key'; continue; }
      fail('found ' + chunk[i] + ' in the strings');
    }
    if (from < n) emit(chunk.slice(from));
  }
  function endValue() {
    if (metaBuf !== null) { meta(metaBuf.join('')); metaBuf = null; }
    top = 'key';
    scalar = false;
  }
  return {
    feed,
    end() {
      flush();
      if (top !== 'done') fail('the snapshot ends early');
    },
  };
}

function isSpace(c) { return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; }

module.exports = { newRedactor };

(function () {
  const out = process.env.HEAPSCOPE_OUT;
  if (!out) return;
  const noValues = process.env.HEAPSCOPE_VALUES === '0';
  if (process.env.HEAPSCOPE_CHILDREN !== '1') {
    // Child processes inherit NODE_OPTIONS; keep them out of it.
    delete process.env.HEAPSCOPE_OUT;
    if (process.env.HEAPSCOPE_TRACE_ALLOC) {
      // Nor do they run with the allocation tracing heapscope asked for.
      const opts = process.env.NODE_OPTIONS || '', track = ' --track-heap-objects';
      if (opts.endsWith(track)) process.env.NODE_OPTIONS = opts.slice(0, -track.length);
      const orig = process.env.HEAPSCOPE_ORIG_PYTHONTRACEMALLOC;
      if (orig !== undefined) process.env.PYTHONTRACEMALLOC = orig;
      else delete process.env.PYTHONTRACEMALLOC;
      delete process.env.HEAPSCOPE_TRACE_ALLOC;
      delete process.env.HEAPSCOPE_ORIG_PYTHONTRACEMALLOC;
    }
  }
  const fs = require('fs');
  const path = require('path');
  const v8 = require('v8');
  let seq = 0;
  function warn(msg) {
    try { process.stderr.write('heapscope: ' + msg + '\n'); } catch (_) {}
  }
  // writeRedacted writes a snapshot without string contents to tmp.
  function writeRedacted(tmp) {
    const inspector = require('inspector');
    const fd = fs.openSync(tmp, 'wx', 0o600);
    let ok = false;
    try {
      const r = newRedactor((s) => fs.writeSync(fd, s));
      const session = new inspector.Session();
      session.connect();
      let done = false, failed = null;
      try {
        session.on('HeapProfiler.addHeapSnapshotChunk', (m) => {
          if (failed) return;
          try { r.feed(m.params.chunk); } catch (e) { failed = e; }
        });
        session.post('HeapProfiler.takeHeapSnapshot', null, (err) => { failed = failed || err; done = true; });
      } finally {
        session.disconnect();
      }
      if (failed) throw failed;
      // The in-process session answers before post returns; if a Node
      // ever did not, the file would be incomplete: refuse it.
      if (!done) throw new Error('the inspector did not answer synchronously');
      r.end();
      ok = true;
    } finally {
      fs.closeSync(fd);
      if (!ok) { try { fs.unlinkSync(tmp); } catch (_) {} }
    }
  }
  function snap(reason) {
    let tmp = null;
    try {
      seq += 1;
      const name = String(seq).padStart(4, '0') + '-' + process.pid + '-' + reason + '.heapsnapshot';
      const final = path.join(out, name);
      tmp = path.join(out, '.' + name + '.tmp');
      fs.mkdirSync(out, { recursive: true, mode: 0o700 });
      if (noValues) writeRedacted(tmp);
      else v8.writeHeapSnapshot(tmp);
      fs.renameSync(tmp, final);
    } catch (e) {
      if (tmp) { try { fs.unlinkSync(tmp); } catch (_) {} }
      warn('snapshot failed: ' + (e && e.message));
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
      warn('cannot handle ' + sig + ': ' + e.message);
    }
  }
  const every = parseFloat(process.env.HEAPSCOPE_EVERY || '0');
  if (every > 0) {
    setInterval(() => snap('interval'), every * 1000).unref();
  }
})();
