// common.js: what the web UI (app.js) and the HTML reports (report.js)
// share: number formats, element building, a sortable, filterable,
// paged table, retainer paths and charts. Plain JavaScript, no build
// step. It formats; every number comes from heapscope's analyses.
'use strict';

const HS = (() => {
  // bytes formats a byte count as the command line does: "512 B",
  // "4.0 KiB", "1.2 GiB".
  function bytes(n) {
    if (n < 1024) return n + ' B';
    const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let v = n, i = -1;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return v.toFixed(1) + ' ' + units[i];
  }
  const signedBytes = (n) => (n < 0 ? '-' + bytes(-n) : '+' + bytes(n));
  const count = (n) => Number(n).toLocaleString('en-US');
  const signedCount = (n) => (n > 0 ? '+' : '') + count(n);
  // counted writes a count with its noun, singular for one: "1 object",
  // "1,204 objects".
  const counted = (n, noun) => count(n) + ' ' + noun + (Number(n) === 1 ? '' : 's');
  const signedFloat = (x) => (x >= 0 ? '+' : '') + x.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const percent = (x) => (100 * x).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 }) + '%';
  const series = (xs) => xs.map(count).join(' → ');
  // growthText and growthSeries show a type's growth class with the series
  // it describes: the counts, or the bytes (marked) when the class is the
  // bytes' (the command line's "steady (bytes)").
  const growthText = (r) => r.growth + (r.by === 'bytes' ? ' (bytes)' : '');
  const growthSeries = (r) => (r.by === 'bytes' ? r.bytes.map(bytes).join(' → ') : series(r.counts));

  // el builds an element: el('a', {href: '#', class: 'x', text: 'hi'},
  // child, 'text', ...). on* attributes are listeners.
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of kids.flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  // shortName shortens a long C++ template name as a reader skims it:
  // what stands between the outermost angle brackets of a template
  // ("blink::HeapVectorBacking<cppgc::internal::BasicMember<...>>")
  // becomes "…" ("blink::HeapVectorBacking<…>"). A "<" that follows no
  // name (an HTML tag: "Detached <div class="panel">") is left alone.
  function shortName(name) {
    if (!name || name.length <= 48) return name;
    let out = '', depth = 0;
    for (let i = 0; i < name.length; i++) {
      const c = name[i];
      if (c === '<' && (depth > 0 || /[\w:>]/.test(name[i - 1] || ''))) {
        if (depth === 0) out += '<…';
        depth++;
        continue;
      }
      if (c === '>' && depth > 0) {
        depth--;
        if (depth === 0) out += '>';
        continue;
      }
      if (depth === 0) out += c;
    }
    return out;
  }
  // nameEl shows a type or object name, shortened, the whole on hover.
  function nameEl(name, cls) {
    const short = shortName(name);
    return el('span', { class: cls || null, text: short, title: short !== name ? name : null });
  }

  // nameOf is what names an object: its own name ("class java.util.HashMap",
  // "onConfigChange (closure)") when it has one, else its type.
  const nameOf = (o) => o.name || o.type;

  // objectText names an object as the command line does: "app.Item@0x3000",
  // a V8 object as DevTools does, "Server @47297", with its value quoted.
  function objectText(o) {
    if (o.id === 'root') return '(all roots)';
    let s = nameOf(o) + idSuffix(o.addr);
    if (o.value) s += ' ' + JSON.stringify(o.value);
    return s;
  }

  // idSuffix is what follows an object's name to say which it is: its
  // address ("@0x3000") or, for V8, its id after a space (" @47297").
  const idSuffix = (addr) => (!addr ? '' : addr.startsWith('@') ? ' ' + addr : '@' + addr);

  // localSource serves a table from rows in memory: filtered by name(row),
  // sorted by a column's value, paged.
  function localSource(rows, name) {
    return async ({ q, sort, desc, offset, limit }) => {
      let kept = rows;
      if (q) kept = rows.filter((r) => name(r).toLowerCase().includes(q.toLowerCase()));
      if (sort) {
        kept = kept.slice();
        const key = (r) => r[sort];
        kept.sort((a, b) => {
          const x = key(a), y = key(b);
          const c = x < y ? -1 : x > y ? 1 : 0;
          return desc ? -c : c;
        });
      }
      return { total: kept.length, rows: kept.slice(offset, offset + limit) };
    };
  }

  // Table is a sortable, filterable, paged table. opts: columns
  // [{key, label, num, sort (a key the source sorts by; false: not
  // sortable), cell(row) -> node or text}], source(query) -> Promise of
  // {total, rows}, filter (placeholder text; none: no filter box), limit,
  // onLoad(result), name (a data-table attribute for tests).
  class Table {
    constructor(opts) {
      this.opts = opts;
      this.q = { q: opts.q || '', sort: '', desc: false, offset: 0, limit: opts.limit || 50 };
      this.body = el('tbody');
      this.info = el('span', { class: 'pager-info' });
      this.prev = el('button', { type: 'button', text: '‹ previous', onclick: () => this.go(-1) });
      this.next = el('button', { type: 'button', text: 'next ›', onclick: () => this.go(1) });
      this.heads = opts.columns.map((c) => {
        const sortable = c.sort !== false;
        const th = el('th', { class: (c.num ? 'num' : '') + (sortable ? ' sortable' : ''), title: sortable ? 'sort' : null }, c.label);
        if (sortable) th.addEventListener('click', () => this.sortBy(c.sort || c.key, c.num));
        return th;
      });
      const filter = opts.filter === undefined ? null : el('input', {
        type: 'search', class: 'filter', placeholder: opts.filter, value: this.q.q,
        oninput: (e) => { clearTimeout(this.timer); this.timer = setTimeout(() => { this.q.q = e.target.value; this.q.offset = 0; this.load(); }, 200); },
      });
      this.element = el('div', { class: 'table-box', 'data-table': opts.name || null },
        el('div', { class: 'table-tools' }, filter, el('span', { class: 'pager' }, this.prev, this.info, this.next)),
        el('table', { class: 'grid' }, el('thead', {}, el('tr', {}, this.heads)), this.body));
      this.load();
    }
    sortBy(key, num) {
      if (this.q.sort === key) this.q.desc = !this.q.desc;
      else { this.q.sort = key; this.q.desc = !!num; }
      this.q.offset = 0;
      this.heads.forEach((th, i) => {
        const c = this.opts.columns[i];
        th.dataset.sorted = (c.sort || c.key) === key ? (this.q.desc ? 'desc' : 'asc') : '';
      });
      this.load();
    }
    go(dir) {
      this.q.offset = Math.max(0, this.q.offset + dir * this.q.limit);
      this.load();
    }
    async load() {
      const seq = (this.seq = (this.seq || 0) + 1);
      this.element.classList.add('loading');
      let res;
      try {
        res = await this.opts.source({ ...this.q });
      } catch (err) {
        this.body.replaceChildren(el('tr', {}, el('td', { class: 'error', colspan: this.opts.columns.length, text: String(err.message || err) })));
        this.element.classList.remove('loading');
        return;
      }
      if (seq !== this.seq) return;
      this.element.classList.remove('loading');
      const rows = res.rows.map((r) => el('tr', {}, this.opts.columns.map((c) => {
        const v = c.cell ? c.cell(r) : r[c.key];
        return el('td', { class: c.num ? 'num' : null }, v);
      })));
      if (rows.length === 0) rows.push(el('tr', {}, el('td', { class: 'empty', colspan: this.opts.columns.length, text: 'nothing to show' })));
      this.body.replaceChildren(...rows);
      const from = res.total === 0 ? 0 : this.q.offset + 1;
      this.info.textContent = `${count(from)}–${count(this.q.offset + res.rows.length)} of ${count(res.total)}`;
      this.prev.disabled = this.q.offset === 0;
      this.next.disabled = this.q.offset + res.rows.length >= res.total;
      this.element.dataset.total = res.total;
      if (this.opts.onLoad) this.opts.onLoad(res);
    }
  }

  // pathSteps lists the objects of a path, each a link made by link(step)
  // (no link when it returns null); a run of equal steps says how many
  // it stands for, and the middle of a long path how many it leaves out.
  function pathSteps(path, link) {
    const steps = path.steps || [];
    return el('ol', { class: 'steps' }, steps.map((s, i) => {
      if (s.gap) return el('li', { class: 'gap', text: `… ${count(s.gap)} steps …` });
      const name = nameOf(s);
      const label = (i === 0 ? (path.root || [path.root_kind, path.root_name].filter(Boolean).join(' ')) + ' → ' : '') +
        (s.edge ? s.edge + ' ' : '') + shortName(name) + idSuffix(s.addr) + (s.steps ? ` (${count(s.steps)} steps)` : '');
      const href = link ? link(s) : null;
      const title = shortName(name) !== name ? name : null;
      return el('li', { class: s.kind === 'weak' ? 'weak' : null }, href ? el('a', { href, text: label, title }) : el('span', { text: label, title }));
    }));
  }

  // pathText shows a path's one-line text ("module app -> .cache dict ->
  // ...") so that it wraps between steps only, never inside a step or
  // its arrow: each step is a piece that does not break, with a space
  // between two; long names are shortened, whole on hover.
  function pathText(text) {
    const parts = String(text).split(' -> ');
    const out = [];
    parts.forEach((p, i) => {
      if (i > 0) out.push(' ');
      const short = p.split(' ').map(shortName).join(' ');
      out.push(el('span', { class: 'step', text: (i > 0 ? '-> ' : '') + short, title: short !== p ? p : null }));
    });
    return el('span', { class: 'path-text' }, out);
  }

  // pathView is a path's one-line text with its steps folded below.
  function pathView(text, path, link) {
    if (!path) return el('span', { class: 'path' }, pathText(text));
    return el('details', { class: 'path' }, el('summary', {}, pathText(text)), pathSteps(path, link));
  }

  // chart makes an ECharts chart in node; it resizes with the window
  // until it is disposed.
  const charts = new Set();
  window.addEventListener('resize', () => charts.forEach((c) => (c.isDisposed() ? charts.delete(c) : c.resize())));
  function chart(node) {
    const c = echarts.init(node, null, { renderer: 'canvas' });
    charts.add(c);
    return c;
  }

  // lineChart draws series [{name, values}] over the x labels.
  function lineChart(c, labels, lines, unit) {
    c.setOption({
      animation: false,
      tooltip: { trigger: 'axis', valueFormatter: unit === 'bytes' ? bytes : count },
      legend: { type: 'scroll', bottom: 0 },
      grid: { left: 70, right: 30, top: 20, bottom: 60 },
      xAxis: { type: 'category', data: labels, boundaryGap: false },
      yAxis: { type: 'value', axisLabel: { formatter: unit === 'bytes' ? bytes : count } },
      series: lines.map((l) => ({ name: l.name, type: 'line', data: l.values, showSymbol: true })),
    }, true);
  }

  // barChart draws horizontal bars of bytes, the biggest on top.
  function barChart(c, items) {
    c.setOption({
      animation: false,
      tooltip: { valueFormatter: bytes },
      grid: { left: 10, right: 40, top: 10, bottom: 20, containLabel: true },
      xAxis: { type: 'value', axisLabel: { formatter: bytes } },
      yAxis: { type: 'category', inverse: true, data: items.map((x) => x.name), axisLabel: { width: 360, overflow: 'truncate' } },
      series: [{ type: 'bar', barMaxWidth: 26, data: items.map((x) => x.value), itemStyle: { color: '#c0504d' } }],
    }, true);
  }

  // suspectsSection lists top's leak suspects as the command line does:
  // where the memory accumulates, the suspect and its share, the path
  // that holds it and what accumulates by type.
  function suspectsSection(suspects, share, reachable) {
    const pct = (x) => (100 * x).toFixed(1) + '%';
    const title = `Leak suspects (each retains over ${pct(share || 0.1)} of the ${bytes(reachable)} reachable; where that memory accumulates)`;
    const list = suspects || [];
    if (list.length === 0) {
      return el('section', { class: 'suspects' }, el('h2', { text: title }),
        el('p', { text: `no accumulation of the program's data retains over ${pct(share || 0.1)} of the reachable heap (classes, functions, modules and their namespaces are code, never suspects)` }));
    }
    return el('section', { class: 'suspects' }, el('h2', { text: title }), el('ol', { class: 'suspects' }, list.map((s) => {
      const grouped = !s.accumulation_point;
      const head = grouped
        ? `${s.text}, ${bytes(s.retained_bytes)} (${pct(s.share)})`
        : `${s.text}, ${bytes(s.accumulated_bytes)}`;
      const kids = [el('div', { class: 'suspect-text', text: head })];
      kids.push(el('div', { text: grouped ? 'e.g. ' + objectText(s.suspect) : `suspect ${objectText(s.suspect)} retains ${bytes(s.retained_bytes)} (${pct(s.share)})` }));
      if (s.path) kids.push(el('div', {}, 'held by ', el('span', { class: 'path', text: s.path })));
      if (s.elements && s.elements.length > 1) {
        kids.push(el('div', { class: 'elements', text: 'accumulates ' + s.elements.map((e) => `${count(e.count)} ${e.type} (${bytes(e.retained_bytes)})`).join(', ') }));
      }
      return el('li', {}, kids);
    })));
  }

  // treeGraph draws a tree of objects as an SVG picture, a small layered
  // layout of its own: the root on the left, each level a column to its
  // right, leaves one row each in order and a parent level with the
  // middle of its children. A node is {label, title, href, cls, kids:
  // [{edge, kind, node}]}; an edge goes from a node to a kid, or with
  // toRoot from the kid to the node (what holds it). A weak edge is
  // dashed, a node of class "cycle" too.
  function treeGraph(root, { toRoot } = {}) {
    const NS = 'http://www.w3.org/2000/svg';
    const svg = (tag, attrs, ...kids) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
      kids.flat().forEach((c) => c !== null && c !== undefined && e.append(c));
      return e;
    };
    const charW = 7, rowH = 30, boxH = 22, padX = 6, gap = 110, maxChars = 44;
    const nodes = [];
    let rows = 0;
    const place = (n, depth) => {
      n.depth = depth;
      n.text = n.label.length > maxChars ? n.label.slice(0, maxChars - 1) + '…' : n.label;
      nodes.push(n);
      const kids = n.kids || [];
      if (kids.length === 0) { n.row = rows++; return; }
      kids.forEach((k) => place(k.node, depth + 1));
      n.row = (kids[0].node.row + kids[kids.length - 1].node.row) / 2;
    };
    place(root, 0);
    const colW = [];
    nodes.forEach((n) => { colW[n.depth] = Math.max(colW[n.depth] || 0, n.text.length * charW + 2 * padX); });
    const colX = [0];
    for (let d = 1; d < colW.length; d++) colX[d] = colX[d - 1] + colW[d - 1] + gap;
    const width = colX[colW.length - 1] + colW[colW.length - 1] + 4, height = Math.max(rows, 1) * rowH + 4;
    const y = (n) => 2 + n.row * rowH + (rowH - boxH) / 2;
    const edges = [], boxes = [];
    nodes.forEach((n) => (n.kids || []).forEach((k) => {
      const c = k.node;
      const x1 = colX[n.depth] + colW[n.depth], y1 = y(n) + boxH / 2, x2 = colX[c.depth], y2 = y(c) + boxH / 2, mx = (x1 + x2) / 2;
      const d = toRoot ? `M ${x2} ${y2} C ${mx} ${y2}, ${mx} ${y1}, ${x1 + 2} ${y1}` : `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2 - 2} ${y2}`;
      edges.push(svg('path', { d, class: 'edge' + (k.kind === 'weak' ? ' weak' : ''), 'marker-end': 'url(#hs-arrow)' }),
        svg('text', { x: x2 - 6, y: y2 - 5, class: 'edge-label', 'text-anchor': 'end' }, shortName(k.edge || '')));
    }));
    nodes.forEach((n) => {
      const x = colX[n.depth], w = n.text.length * charW + 2 * padX;
      const box = svg('g', { class: 'node' + (n.cls ? ' ' + n.cls : '') },
        svg('title', {}, n.title || n.label),
        svg('rect', { x, y: y(n), width: w, height: boxH, rx: 4 }),
        svg('text', { x: x + padX, y: y(n) + boxH - 7 }, n.text));
      boxes.push(n.href ? svg('a', { href: n.href }, box) : box);
    });
    return svg('svg', { class: 'graph', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' },
      svg('defs', {}, svg('marker', { id: 'hs-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        svg('path', { d: 'M 0 0 L 10 5 L 0 10 z' }))),
      edges, boxes);
  }

  const basename = (p) => p.split(/[\\/]/).pop();

  // overviewText is the line that says what a snapshot holds.
  function overviewText(o) {
    let rt = o.runtime + (o.version ? ' ' + o.version : '') + (o.census ? ' census' : '');
    return `${rt}, ${count(o.objects)} objects, ${count(o.edges)} edges, ${bytes(o.bytes)}, ${count(o.warnings)} warnings`;
  }

  return {
    bytes, signedBytes, count, counted, signedCount, signedFloat, percent, series, growthText, growthSeries, el, shortName, nameEl, nameOf, idSuffix, objectText, localSource, Table,
    pathSteps, pathText, pathView, treeGraph, chart, lineChart, barChart, basename, overviewText, suspectsSection,
  };
})();
