// report.js: draws a self-contained HTML report (heapscope top, leaks,
// check or trend --format html) from the JSON inlined in the page, which
// is the command's --json output. Tables sort and filter in the page.
'use strict';

(() => {
  const { el, bytes, count, Table } = HS;
  const data = JSON.parse(document.getElementById('heapscope-data').textContent);
  const kind = document.body.dataset.kind;
  const main = document.getElementById('main');

  const section = (title, ...kids) => el('section', {}, el('h2', { text: title }), ...kids);
  const table = (name, rows, nameOf, columns, limit) =>
    new Table({ name, source: HS.localSource(rows, nameOf), filter: 'filter', columns, limit: limit || 50 }).element;

  function sources(list) {
    return el('ul', { class: 'sources' }, list.map((s) => el('li', {}, el('code', { text: s.path }), ': ' + HS.overviewText(s.overview))));
  }

  // steps of a report path: {root, text, steps: [{edge, kind, type, addr}]}
  const samplePath = (text, p) => HS.pathView(text, p, null);

  function findingColumns() {
    return [
      { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
      { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
      { key: 'shallow_bytes', label: 'shallow', num: true, cell: (r) => bytes(r.shallow_bytes) },
      { key: 'type', label: 'what leaked, where', cell: findingWhat },
      { key: 'growth', label: 'growth', sort: false, cell: (r) => r.growth || '' },
      { key: 'path', label: 'held by (click for an example path)', sort: false, cell: findingHolders },
    ];
  }

  // findingWhat is what a finding's objects are and where, and its parts
  // when it has several.
  function findingWhat(r) {
    const what = (r.text || r.type) + (r.noise ? ` [noise: ${r.noise}]` : '');
    const copies = r.copies ? el('p', { class: 'copies', text: 'copies: ' + r.copies.text }) : null;
    if (!r.parts || r.parts.length < 2) return copies ? el('div', {}, what, copies) : what;
    return el('div', {}, what, copies, el('details', { class: 'parts' }, el('summary', { text: `${count(r.parts.length)} parts` }),
      el('ul', {}, r.parts.map((x) => el('li', {}, `${x.text}, retained ${bytes(x.retained_bytes)}: `, samplePath(x.path, x.sample_path))))));
  }

  // findingHolders is the path that holds a finding, and every holder
  // when it has several: what each holds and what removing it frees.
  function findingHolders(r) {
    const path = samplePath(r.path, r.sample_path);
    if (!r.holders || r.holders.length < 2) return path;
    return el('div', { class: 'holders' }, path, el('p', { text: r.held_by }),
      el('ul', {}, r.holders.map((h) => el('li', {},
        `${h.text}: holds ${count(h.holds)}, alone frees ${h.frees ? `${count(h.frees)} (${bytes(h.frees_bytes)})` : 'nothing'}${h.bounded ? `; ${h.bounded}` : ''}`,
        h.group ? '' : samplePath('path', h.path)))));
  }

  function chartBox(id) {
    return el('div', { id, class: 'chart small' });
  }

  function leaks(d) {
    const line = d.identity === 'none'
      ? `objects cannot be matched across these snapshots (identity: none): findings are the paths that held more objects in target than in baseline, and no fewer in final; they hold ${count(d.leaked)} objects (${bytes(d.leaked_bytes)})`
      : `identity: ${d.identity}; ${count(d.new)} objects new in target, ${count(d.leaked)} of them still alive in final (${bytes(d.leaked_bytes)})`;
    const out = [el('h1', { text: 'Leaks: created between baseline and target, still alive in final' }), sources(d.snapshots),
      el('p', { class: 'verdict', text: line + (d.suppressed ? `; ${count(d.suppressed)} groups set aside as known noise` : '') })];
    if (d.rows.length === 0) return [...out, el('p', { class: 'banner pass', text: 'no leak found' })];
    const box = chartBox('leaks-chart');
    out.push(box, table('leaks', d.rows, (r) => r.type + ' ' + r.path, findingColumns()));
    if (d.findings > d.rows.length) out.push(el('p', { text: `(${count(d.findings - d.rows.length)} more findings not shown: --top 0 shows all)` }));
    later(() => HS.barChart(HS.chart(box), d.rows.slice(0, 12).map((r) => ({ name: `${r.type} × ${count(r.count)}`, value: r.retained_bytes }))));
    return out;
  }

  function check(d) {
    const out = [el('h1', { text: 'Leak check' }), sources(d.snapshots),
      el('p', { class: 'banner ' + (d.pass ? 'pass' : 'fail'), text: d.pass ? 'PASS: no leak over the allowances' : `FAIL: ${d.failures} leak(s) over the allowances` })];
    if (d.verdicts.length === 0) return out;
    const rows = d.verdicts.map((v) => ({ ...v.finding, verdict: v.fail ? 'leak' : 'pass (' + v.reason + ')' }));
    out.push(table('check', rows, (r) => r.type + ' ' + r.path,
      [{ key: 'verdict', label: 'verdict', cell: (r) => el('span', { class: r.verdict === 'leak' ? 'error' : null, text: r.verdict }) }, ...findingColumns()]));
    return out;
  }

  // topRow names the places of a row of top's "objects" and "context"
  // (see report/objline.go): [id, addr, type, shallow_bytes,
  // retained_bytes, dominator, edge, from, more].
  function topRow(a) {
    const more = a[8] || {};
    return {
      id: a[0], addr: a[1], type: a[2], shallow_bytes: a[3], retained_bytes: a[4], dominator: a[5],
      edge: a[6], from: a[7] != null ? a[7] : a[5], name: more.name, value: more.value, root: more.root, weak: more.weak,
    };
  }

  // linkedChain and linkedPath spell out what top's rows give as links
  // from object to object: the dominator chain as labels, runs of one
  // label folded as the command line folds them, and the shortest path
  // from its root.
  function linkedChain(o, byId) {
    const labels = [];
    for (let x = byId.get(o.dominator); x; x = byId.get(x.dominator)) labels.unshift(HS.nameOf(x));
    const out = [];
    for (let i = 0; i < labels.length;) {
      let j = i + 1;
      while (j < labels.length && labels[j] === labels[i]) j++;
      if (j - i > 3) out.push(`${labels[i]} x ${count(j - i)}`);
      else out.push(...labels.slice(i, j));
      i = j;
    }
    return out.join(' › ') || '-';
  }

  function linkedPath(o, byId) {
    const steps = [];
    let x = o;
    for (; x && x.root === undefined && x.edge != null; x = byId.get(x.from)) {
      const step = (x.weak ? '(weak) ' : '') + (x.edge ? x.edge + ' ' : '') + HS.nameOf(x);
      if (steps.length && steps[0].text === step) steps[0].n++;
      else steps.unshift({ text: step, n: 1 });
    }
    if (!x || x.root === undefined) return '';
    const first = HS.nameOf(x);
    if (x.root !== first && !x.root.startsWith(first + ' ') && !x.root.endsWith(' ' + first)) steps.unshift({ text: first, n: 1 });
    steps.unshift({ text: x.root, n: 1 });
    return steps.map((s) => (s.n > 1 ? `${s.text} (${count(s.n)} steps)` : s.text)).join(' -> ');
  }

  function top(d) {
    const rows = d.objects.map(topRow);
    const byId = new Map([...rows, ...(d.context || []).map(topRow)].map((o) => [o.id, o]));
    const objs = rows.map((o) => ({ ...o, chain: linkedChain(o, byId), path: linkedPath(o, byId) }));
    const box = chartBox('top-chart');
    const out = [el('h1', { text: 'What retains the most' }), sources([d.snapshot]),
      HS.suspectsSection(d.suspects, d.suspect_share, d.reachable_bytes),
      section(`Types that retain the most (each object counted once; of ${bytes(d.reachable_bytes)} reachable)`, box,
        table('top-types', d.types, (r) => r.type, [
          { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
          { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
          { key: 'shallow_bytes', label: 'shallow', num: true, cell: (r) => bytes(r.shallow_bytes) },
          { key: 'type', label: 'type' },
        ])),
      section('Objects that retain the most', table('top-objects', objs, (o) => HS.nameOf(o) + ' ' + o.type + ' ' + o.path, [
        { key: 'retained_bytes', label: 'retained', num: true, cell: (o) => bytes(o.retained_bytes) },
        { key: 'shallow_bytes', label: 'shallow', num: true, cell: (o) => bytes(o.shallow_bytes) },
        { key: 'type', label: 'object', cell: (o) => el('span', { class: 'object', text: HS.objectText(o) }) },
        { key: 'chain', label: 'dominated by' },
        { key: 'path', label: 'held by', cell: (o) => el('span', { class: 'path', text: o.path }) },
      ]))];
    if (d.held_outside_heap && d.held_outside_heap.length) {
      out.push(section('Held outside the heap (more references than the snapshot shows)', table('native', d.held_outside_heap, (r) => r.type, [
        { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
        { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
        { key: 'excess_references', label: 'extra refs', num: true, cell: (r) => count(r.excess_references) },
        { key: 'type', label: 'type' },
        { key: 'keeps_text', label: 'keeps', sort: false },
        { key: 'sample', label: 'e.g.', cell: (r) => el('span', { class: 'object', text: r.sample }) },
      ])));
    }
    if (d.unreachable > 0) out.push(section('Unreachable', el('p', { text: `${count(d.unreachable)} objects (${bytes(d.unreachable_bytes)}) that no root reaches` })));
    later(() => HS.barChart(HS.chart(box), d.types.slice(0, 12).map((r) => ({ name: r.type, value: r.retained_bytes }))));
    return out;
  }

  function trend(d) {
    const labels = d.snapshots.map((s, i) => `${i + 1}: ${HS.basename(s.path)}`);
    const box = chartBox('trend-chart');
    const plotted = new Map(d.rows.slice(0, 8).map((r) => [r.type, r]));
    let c = null;
    const draw = () => {
      c = c || HS.chart(box);
      HS.lineChart(c, labels, [...plotted.values()].map((r) => ({ name: r.type, values: r.counts })), 'count');
      box.dataset.series = plotted.size;
    };
    const out = [el('h1', { text: 'Growth per type over the snapshots' }), sources(d.snapshots), box,
      section('Types (steady growth first: the leak signature)', table('trend', d.rows, (r) => r.type, [
        { key: 'plot', label: 'plot', sort: false, cell: (r) => el('input', { type: 'checkbox', checked: plotted.has(r.type), onchange: (e) => { if (e.target.checked) plotted.set(r.type, r); else plotted.delete(r.type); draw(); } }) },
        { key: 'growth', label: 'growth', cell: (r) => el('span', { class: 'growth ' + r.growth, text: HS.growthText(r) }) },
        { key: 'count_per_snapshot', label: 'per snapshot', num: true, cell: (r) => HS.signedFloat(r.count_per_snapshot) },
        { key: 'bytes_per_snapshot', label: 'bytes per snapshot', num: true, cell: (r) => HS.signedBytes(Math.round(r.bytes_per_snapshot)) },
        { key: 'counts', label: 'counts (or bytes)', sort: false, cell: (r) => HS.growthSeries(r) },
        { key: 'type', label: 'type' },
      ])),
      section('Paths that grew in every snapshot', table('trend-paths', d.paths, (r) => r.type + ' ' + r.path, [
        { key: 'count_per_snapshot', label: 'per snapshot', num: true, cell: (r) => HS.signedFloat(r.count_per_snapshot) },
        { key: 'counts', label: 'counts', sort: false, cell: (r) => HS.series(r.counts) },
        { key: 'type', label: 'type' },
        { key: 'path', label: 'held by' },
      ])),
      section('Collections that grew in every snapshot', table('trend-collections', d.unbounded_collections, (r) => r.type + ' ' + r.path, [
        { key: 'entries_per_snapshot', label: 'entries per snapshot', num: true, cell: (r) => HS.signedFloat(r.entries_per_snapshot) },
        { key: 'entries', label: 'entries', sort: false, cell: (r) => HS.series(r.entries) },
        { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
        { key: 'type', label: 'type' },
        { key: 'path', label: 'path' },
      ]))];
    later(draw);
    return out;
  }

  // later runs fn once the page is laid out (charts need their size).
  const pending = [];
  const later = (fn) => pending.push(fn);

  const views = { leaks, check, top, trend };
  try {
    main.replaceChildren(...(views[kind] || (() => [el('p', { class: 'error', text: 'unknown report ' + kind })]))(data));
  } catch (err) {
    main.replaceChildren(el('p', { class: 'error', text: String(err) }));
  }
  pending.forEach((fn) => fn());
  document.body.dataset.ready = 'true';
})();
