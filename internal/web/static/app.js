// app.js: the pages of `heapscope web`. Each view asks the local server
// for what it shows (see package web's doc for the endpoints) and draws
// it; the location hash (#/view?key=value) says which view and what.
'use strict';

(() => {
  const { el, bytes, count, counted, Table } = HS;
  const main = document.getElementById('main');
  const state = { snaps: [], leaks: null };

  // The address heapscope web prints carries its token, which the server
  // has now set as a cookie: take it out of the address bar and history.
  if (new URLSearchParams(location.search).has('token')) {
    history.replaceState(null, '', location.pathname + location.hash);
  }

  // The server answers the page's requests when they carry its token in
  // a header (the cookie alone would come with other pages' requests
  // too); it gives the token in the page.
  const tokenMeta = document.querySelector('meta[name="heapscope-token"]');
  const headers = { Accept: 'application/json' };
  if (tokenMeta) headers['X-Heapscope-Token'] = tokenMeta.content;

  // api fetches JSON from the server; it throws the server's error text.
  async function api(path, params) {
    const qs = params ? '?' + new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v !== undefined && v !== null)) : '';
    const res = await fetch(path + qs, { headers });
    const body = await res.json();
    if (!res.ok) throw new Error(body.error || res.statusText);
    return body;
  }

  // remote serves a Table from a paged endpoint.
  const remote = (path, extra) => (q) => api(path, { ...extra, q: q.q, sort: q.sort, desc: q.desc ? 1 : '', offset: q.offset, limit: q.limit });

  // link builds a hash for a view and its parameters.
  function link(view, params) {
    const qs = new URLSearchParams(Object.entries(params || {}).filter(([, v]) => v !== '' && v !== undefined && v !== null));
    return '#/' + view + (qs.toString() ? '?' + qs : '');
  }
  const treeLink = (s, id) => link('tree', { s, id });
  const whyLink = (s, params) => link('why', { s, ...params });
  const stepLink = (s) => (step) => treeLink(s, step.id);

  function parseHash() {
    const h = location.hash.replace(/^#\/?/, '');
    const [view, qs] = h.split('?');
    return { view: view || 'overview', params: Object.fromEntries(new URLSearchParams(qs || '')) };
  }

  function snapSelect(name, value, onchange) {
    return el('select', { name, onchange: (e) => onchange(Number(e.target.value)) },
      state.snaps.map((s) => el('option', { value: s.index, selected: s.index === value, text: `${s.index + 1}: ${HS.basename(s.path)}` })));
  }
  // Views open on the latest snapshot, where a leak is biggest.
  const latest = () => state.snaps.length - 1;
  const snapParam = (p, name, def) => {
    const v = p[name] === undefined ? def : Number(p[name]);
    return Number.isInteger(v) && v >= 0 && v < state.snaps.length ? v : def;
  };

  function section(title, ...kids) {
    return el('section', {}, el('h2', { text: title }), ...kids);
  }
  function failure(err) {
    return el('p', { class: 'error', text: String(err.message || err) });
  }
  function objectLink(s, o) {
    return el('a', { href: treeLink(s, o.id), class: 'object', text: HS.objectText(o), title: 'show in the dominator tree' });
  }

  // ---- overview ----
  function overview() {
    const cards = state.snaps.map((s) => {
      const o = s.overview;
      const rows = [
        ['runtime', o.runtime + (o.version ? ' ' + o.version : '') + (o.census ? ' (census: no references)' : '')],
        ['objects', count(o.objects)], ['edges', count(o.edges)], ['bytes', bytes(o.bytes)],
        ['types', count(o.types)], ['roots', count(o.roots)], ['warnings', count(o.warnings)],
      ];
      const links = [el('a', { href: link('summary', { s: s.index }), text: 'summary' })];
      if (!o.census) {
        links.push(el('a', { href: link('top', { s: s.index }), text: 'top' }),
          el('a', { href: treeLink(s.index, 'root'), text: 'dominator tree' }),
          el('a', { href: whyLink(s.index, {}), text: 'why' }));
      }
      return el('div', { class: 'card', 'data-snapshot': s.index },
        el('h3', { title: s.path, text: `${s.index + 1}: ${HS.basename(s.path)}` }),
        s.path !== HS.basename(s.path) ? el('p', { class: 'file', text: s.path }) : null,
        el('dl', {}, rows.map(([k, v]) => [el('dt', { text: k }), el('dd', { 'data-field': k, text: v })])),
        s.warnings.length ? el('details', { class: 'warnings' }, el('summary', { text: `${count(o.warnings)} warnings` }),
          el('ul', {}, s.warnings.map((w) => el('li', { text: w }))),
          o.warnings > s.warnings.length ? el('p', { text: `(${count(o.warnings - s.warnings.length)} more: heapscope summary -v lists them)` }) : null) : null,
        el('p', { class: 'links' }, links));
    });
    const more = [];
    if (state.snaps.length >= 2) more.push(el('a', { href: link('diff', {}), text: 'diff the first and the last' }), el('a', { href: link('trend', {}), text: 'trend over all' }));
    if (state.leaks) more.push(el('a', { href: link('leaks', {}), text: 'find leaks (three snapshots)' }));
    return [el('h1', { text: `${state.snaps.length} snapshot${state.snaps.length === 1 ? '' : 's'}` }),
      el('div', { class: 'cards' }, cards), more.length ? el('p', { class: 'links' }, more) : null];
  }

  // subRow opens (or closes) a row of a table below it, holding what
  // make() builds: the objects of a summary or diff row.
  function subRow(button, make) {
    const tr = button.closest('tr');
    const next = tr.nextElementSibling;
    if (next && next.classList.contains('sub') && next.dataset.for === button.dataset.for) {
      next.remove();
      button.classList.remove('open');
      return;
    }
    if (next && next.classList.contains('sub')) next.remove();
    tr.parentNode.querySelectorAll('button.open').forEach((b) => b.classList.remove('open'));
    button.classList.add('open');
    tr.after(el('tr', { class: 'sub', 'data-for': button.dataset.for }, el('td', { colspan: tr.children.length }, make())));
  }

  // objectList is a paged table of objects (rows from a server list of
  // objects): each links to the dominator tree of snapshot s.
  function objectList(name, s, source) {
    return new Table({
      name, limit: 20, source,
      columns: [
        { key: 'id', label: 'object', cell: (o) => objectLink(s, o) },
        { key: 'retained_bytes', label: 'retained', num: true, cell: (o) => bytes(o.retained_bytes) },
        { key: 'shallow_bytes', label: 'shallow', num: true, cell: (o) => bytes(o.shallow_bytes) },
        { key: 'distance', label: 'distance', num: true, cell: (o) => (o.distance === undefined || o.distance < 0 ? '' : count(o.distance)) },
        { key: 'why', label: '', sort: false, cell: (o) => el('span', { class: 'links' }, el('a', { href: whyLink(s, { id: o.id }), text: 'why' }), el('a', { href: treeLink(s, o.id), text: 'retainers' })) },
      ],
    }).element;
  }

  // ---- summary: DevTools' Summary ----
  function summary(p) {
    const s = snapParam(p, 's', latest());
    const census = state.snaps[s].overview.census;
    const opt = (r, f) => (r.retained_bytes === undefined ? '' : f(r));
    const t = new Table({
      name: 'summary', filter: 'filter by type', q: p.q, limit: 100,
      source: remote(`/api/snapshots/${s}/summary`, census ? {} : { retained: 1 }),
      columns: [
        { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
        { key: 'shallow_bytes', label: 'shallow bytes', num: true, cell: (r) => bytes(r.shallow_bytes) },
        ...(census ? [] : [
          { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => opt(r, (x) => bytes(x.retained_bytes)) },
          { key: 'share', label: '% heap', num: true, cell: (r) => opt(r, (x) => HS.percent(x.share)) },
          { key: 'distance', label: 'distance', num: true, cell: (r) => opt(r, (x) => (x.distance < 0 ? '-' : count(x.distance))) },
        ]),
        {
          key: 'type', label: 'type', cell: (r) => (census ? HS.nameEl(r.type) : el('span', {},
            el('button', { type: 'button', class: 'expand', 'data-for': r.type, title: 'list its objects', text: '▸', onclick: (e) => subRow(e.target, () => objectList('objects', s, remote(`/api/snapshots/${s}/objects`, { type: r.type }))) }),
            el('a', { href: whyLink(s, { type: r.type }), title: 'why are they alive?' }, HS.nameEl(r.type)))),
        },
      ],
    });
    return [el('h1', { text: 'Objects per type' }),
      el('p', { class: 'controls' }, 'snapshot ', snapSelect('s', s, (v) => go('summary', { s: v })),
        census ? ' (a census: no references, so no retained sizes)' : ' Retained: what the type\u2019s objects keep alive, each object once; distance: references from a root to the nearest. ▸ lists the objects.'),
      t.element];
  }

  // ---- diff: DevTools' Comparison ----
  function diff(p) {
    const a = snapParam(p, 'a', 0), b = snapParam(p, 'b', latest());
    const identity = state.snaps[a].overview.runtime === 'v8' && state.snaps[b].overview.runtime === 'v8';
    const objects = (r, which) => el('button', {
      type: 'button', class: 'expand', 'data-for': r.type + '/' + which, text: which === 'new' ? count(r.new) : count(r.deleted),
      title: `list the ${which} objects`, disabled: (which === 'new' ? r.new : r.deleted) <= 0,
      onclick: (e) => subRow(e.target, () => objectList('diff-objects', which === 'new' ? b : a,
        remote('/api/diff/objects', { a, b, which, type: r.type, classes: r.classes, types: r.types }))),
    });
    const cols = [
      { key: 'count_delta', label: 'count Δ', num: true, cell: (r) => HS.signedCount(r.count_delta) },
      { key: 'bytes_delta', label: 'bytes Δ', num: true, cell: (r) => HS.signedBytes(r.bytes_delta) },
      { key: 'count_after', label: 'count', num: true, cell: (r) => `${count(r.count_before)} → ${count(r.count_after)}` },
      { key: 'bytes_after', label: 'bytes', num: true, cell: (r) => `${bytes(r.bytes_before)} → ${bytes(r.bytes_after)}` },
      ...(identity ? [
        { key: 'new', label: '# new', num: true, cell: (r) => objects(r, 'new') },
        { key: 'deleted', label: '# deleted', num: true, cell: (r) => objects(r, 'deleted') },
        { key: 'new_bytes', label: 'allocated', num: true, cell: (r) => bytes(r.new_bytes) },
        { key: 'deleted_bytes', label: 'freed', num: true, cell: (r) => bytes(r.deleted_bytes) },
      ] : []),
      { key: 'type', label: 'type', cell: (r) => el('span', {}, HS.nameEl(r.classes ? `${r.type} (classes ${r.classes})` : r.types ? `${r.type} (instances of ${count(r.types)} classes)` : r.type), r.status ? el('span', { class: 'tag', text: r.status }) : null) },
    ];
    const t = new Table({ name: 'diff', filter: 'filter by type', q: p.q, limit: 100, source: remote('/api/diff', { a, b }), columns: cols });
    return [el('h1', { text: 'Change per type' }),
      el('p', { class: 'controls' }, 'before ', snapSelect('a', a, (v) => go('diff', { a: v, b })), ' after ', snapSelect('b', b, (v) => go('diff', { a, b: v })),
        identity ? ' V8 ids tell which objects are new and which were deleted: click a count to list them.' : ' (objects of these snapshots cannot be matched: counts only)'),
      t.element];
  }

  // ---- dominator tree: breadcrumb, treemap, expandable table ----
  function tree(p) {
    const s = snapParam(p, 's', latest());
    const id = p.id || 'root';
    const crumbs = el('nav', { class: 'crumbs' });
    const chartBox = el('div', { id: 'treemap', class: 'chart' });
    const body = el('tbody');
    const table = el('table', { class: 'grid tree', 'data-table': 'tree' },
      el('thead', {}, el('tr', {}, ['object', 'retained', 'shallow', 'children', ''].map((h, i) => el('th', { class: i > 0 && i < 4 ? 'num' : null, text: h })))), body);
    const find = el('input', { type: 'text', name: 'object', size: 24, placeholder: '@47297, 0x7f3a…, Server @47297' });
    const found = el('span', { class: 'error' });
    const goTo = el('form', { class: 'controls', onsubmit: async (e) => {
      e.preventDefault();
      found.textContent = '';
      try {
        const r = await api(`/api/snapshots/${s}/objects`, { sel: find.value.trim(), limit: 2 });
        if (r.total === 1) go('tree', { s, id: r.rows[0].id });
        else go('why', { s, sel: find.value.trim() });
      } catch (err) { found.textContent = String(err.message || err); }
    } }, 'go to object ', find, ' ', el('button', { type: 'submit', text: 'go' }), ' ', found);
    const view = [el('h1', { text: 'Dominator tree' }),
      el('p', { class: 'controls' }, 'snapshot ', snapSelect('s', s, (v) => go('tree', { s: v })),
        ' Retained size: what would be freed if the object went. Click a rectangle or a row\u2019s focus to go down.'),
      goTo,
      crumbs, chartBox, table];
    if (id !== 'root') view.push(objectPanes(s, { id }));

    api(`/api/snapshots/${s}/object/${id}`).then((info) => {
      crumbs.replaceChildren(...[...info.dominators, info.object].map((o, i, all) => {
        const label = o.id === 'root' ? '(all roots)' : HS.nameOf(o);
        return [i > 0 ? ' › ' : '', i === all.length - 1 ? el('b', { text: label }) : el('a', { href: treeLink(s, o.id), text: label, title: HS.objectText(o) })];
      }).flat());
      if (info.path) crumbs.append(el('div', { class: 'held-by' }, 'held by ', HS.pathView(info.path.text, info.path, stepLink(s))));
      const top = row(s, info.object, 0, null);
      body.replaceChildren(top.tr);
      if (info.object.children > 0) top.expand();
    }).catch((err) => crumbs.replaceChildren(failure(err)));

    requestAnimationFrame(() => drawTreemap(s, id, chartBox));
    return view;
  }

  // objectPanes are DevTools' Retainers and Containment panes, MAT's
  // incoming and outgoing references, for the objects sel picks: every
  // reference, grouped, each group expandable level by level; and a
  // picture of what holds them, three levels deep.
  function objectPanes(s, sel) {
    const pic = el('div', { class: 'graph-box', 'data-graph': 'retainers' }, el('p', { class: 'loading', text: 'drawing…' }));
    api(`/api/snapshots/${s}/retainers`, { ...sel, depth: 3, limit: 8 }).then((r) => {
      const node = (g) => ({
        label: g.objects === 1 ? HS.objectText(g.first) : `${HS.shortName(g.name || g.type)} × ${count(g.objects)}`,
        title: g.text, href: g.objects === 1 ? treeLink(s, g.first.id) : null, cls: (g.cycle || 0) === g.objects ? 'cycle' : null,
        kids: (g.groups || []).map((k) => ({ edge: k.edge, kind: k.kind, node: node(k) })),
      });
      const root = { label: r.selected === 1 ? r.selector : `${r.selector} × ${count(r.selected)}`, cls: 'selected', kids: r.rows.map((g) => ({ edge: g.edge, kind: g.kind, node: node(g) })) };
      if (sel.id) {
        api(`/api/snapshots/${s}/object/${sel.id}`).then((info) => { root.label = HS.objectText(info.object); pic.replaceChildren(HS.treeGraph(root, { toRoot: true })); pic.dataset.ready = 'true'; }).catch(() => {});
        return;
      }
      pic.replaceChildren(HS.treeGraph(root, { toRoot: true }));
      pic.dataset.ready = 'true';
    }).catch((err) => pic.replaceChildren(failure(err)));
    return el('div', { class: 'panes' },
      section('Retainers: every reference to it, nearest the roots first (▸ shows what holds the holder)', neighborPane(s, sel, false), pic),
      section('References: every reference it holds', neighborPane(s, sel, true)));
  }

  // neighborPane is the table of one level of retainers (out false) or
  // references of the objects sel picks, each group a row that opens on
  // the level below it.
  function neighborPane(s, sel, out) {
    const kind = out ? 'refs' : 'retainers';
    const body = el('tbody');
    const note = el('p', { class: 'controls' });
    const heads = [[out ? 'holds' : 'held by', null], ['objects', 'num'], ['retained', 'num'], ['shallow', 'num'], ['distance', 'num']];
    const table = el('table', { class: 'grid neighbors', 'data-table': kind },
      el('thead', {}, el('tr', {}, heads.map(([h, c]) => el('th', { class: c, text: h })))), body);
    // level shows a page of the groups that path leads to: after the row
    // that opened it (none: the first level), or in place of its "show
    // more" row.
    async function level(path, depth, after, offset, moreRow) {
      const res = await api(`/api/snapshots/${s}/${kind}`, { ...sel, path: path.join('.'), offset, limit: 50 });
      if (depth === 0) {
        note.textContent = `${count(res.total)} group${res.total === 1 ? '' : 's'} of ${out ? 'references' : 'retainers'}` + (res.exhausted ? ' (stopped early: too many edges to look at)' : '');
      }
      const rows = res.rows.map((g) => groupRow(g, [...path, g.index], depth));
      const left = res.total - offset - res.rows.length;
      if (left > 0) {
        const btn = el('button', { type: 'button', text: `show ${Math.min(50, left)} more (${count(left)} left)` });
        const next = el('tr', { class: 'more', 'data-depth': depth }, el('td', { colspan: 5, style: `padding-left:${1.5 + depth * 1.2}em` }, btn));
        btn.addEventListener('click', () => { btn.disabled = true; level(path, depth, null, offset + res.rows.length, next); });
        rows.push(next);
      }
      if (rows.length === 0) rows.push(el('tr', {}, el('td', { class: 'empty', colspan: 5, text: out ? 'it holds nothing' : 'nothing refers to it' })));
      if (moreRow) moreRow.replaceWith(...rows);
      else if (after) after.after(...rows);
      else body.replaceChildren(...rows);
    }
    function groupRow(g, path, depth) {
      const open = (g.cycle || 0) < g.objects;
      const toggle = el('button', { type: 'button', class: 'toggle', text: open ? '▸' : '', disabled: !open, title: open ? (out ? 'show what these hold' : 'show what holds these') : 'on the way already: a cycle' });
      const what = g.objects === 1 ? objectLink(s, g.first) : el('span', { class: 'object' }, HS.nameEl(g.name || g.type), ` × ${count(g.objects)}`);
      const name = el('td', { class: 'name', style: `padding-left:${0.3 + depth * 1.2}em` }, toggle,
        g.kind === 'weak' ? el('span', { class: 'tag', text: 'weak' }) : null,
        g.edge ? el('span', { class: 'edge', text: g.edge }) : null, g.edge ? ' ' : '', out ? '' : 'in ', what,
        g.edges !== g.objects ? el('span', { class: 'edge', text: ` (${count(g.edges)} edges)` }) : null,
        (g.cycle || 0) === g.objects ? el('span', { class: 'tag', text: 'cycle' }) : null);
      const tr = el('tr', { 'data-depth': depth, 'data-path': path.join('.'), class: g.kind === 'weak' ? 'weak' : null }, name,
        el('td', { class: 'num', text: count(g.objects) }), el('td', { class: 'num', text: bytes(g.retained_bytes) }),
        el('td', { class: 'num', text: bytes(g.shallow_bytes) }), el('td', { class: 'num', text: g.distance < 0 ? '-' : count(g.distance) }));
      let shown = false;
      toggle.addEventListener('click', async () => {
        if (shown) {
          shown = false;
          toggle.textContent = '▸';
          while (tr.nextElementSibling && Number(tr.nextElementSibling.dataset.depth) > depth) tr.nextElementSibling.remove();
          return;
        }
        shown = true;
        toggle.textContent = '▾';
        try { await level(path, depth + 1, tr, 0, null); } catch (err) { tr.after(el('tr', { 'data-depth': depth + 1 }, el('td', { colspan: 5 }, failure(err)))); }
      });
      return tr;
    }
    level([], 0, null, 0, null).catch((err) => body.replaceChildren(el('tr', {}, el('td', { colspan: 5 }, failure(err)))));
    return el('div', { class: 'table-box' }, note, table);
  }

  // row makes an expandable row of the tree table; children are fetched
  // a page at a time when it opens.
  function row(s, o, depth, after) {
    const toggle = el('button', { type: 'button', class: 'toggle', text: o.children > 0 ? '▸' : '', disabled: o.children === 0, title: 'show what it dominates' });
    const name = el('td', { class: 'name', style: `padding-left:${0.3 + depth * 1.2}em` }, toggle,
      o.edge ? el('span', { class: 'edge', text: o.edge }) : null, el('span', { class: 'object', text: HS.objectText(o) }));
    const actions = el('td', { class: 'actions' },
      o.id !== 'root' ? el('a', { href: treeLink(s, o.id), text: 'focus', title: 'draw the tree from here' }) : null,
      o.id !== 'root' ? el('a', { href: whyLink(s, { id: o.id }), text: 'why', title: 'why is it alive?' }) : null);
    const tr = el('tr', { 'data-id': o.id, 'data-depth': depth }, name,
      el('td', { class: 'num', text: bytes(o.retained_bytes) }), el('td', { class: 'num', text: bytes(o.shallow_bytes) }),
      el('td', { class: 'num', text: o.children ? count(o.children) : '' }), actions);
    let open = false;
    // more shows a page of children: after this row, or in place of the
    // "show more" row that asked for it (rows of opened children stay
    // above it).
    async function more(offset, moreRow) {
      const res = await api(`/api/snapshots/${s}/children/${o.id}`, { offset, limit: 50 });
      const rows = res.rows.map((k) => row(s, k, depth + 1).tr);
      const left = res.total - offset - res.rows.length;
      if (left > 0) {
        const btn = el('button', { type: 'button', text: `show ${Math.min(50, left)} more (${count(left)} left)` });
        const next = el('tr', { class: 'more', 'data-depth': depth + 1 }, el('td', { colspan: 5, style: `padding-left:${1.5 + (depth + 1) * 1.2}em` }, btn));
        btn.addEventListener('click', () => { btn.disabled = true; more(offset + res.rows.length, next); });
        rows.push(next);
      }
      if (moreRow) moreRow.replaceWith(...rows);
      else tr.after(...rows);
    }
    async function expand() {
      if (open || o.children === 0) return;
      open = true;
      toggle.textContent = '▾';
      tr.classList.add('open');
      try { await more(0, null); } catch (err) { tr.after(el('tr', { 'data-depth': depth + 1 }, el('td', { colspan: 5 }, failure(err)))); }
    }
    // collapse removes every row below this one that is deeper.
    function collapse() {
      open = false;
      toggle.textContent = '▸';
      tr.classList.remove('open');
      while (tr.nextElementSibling && Number(tr.nextElementSibling.dataset.depth) > depth) tr.nextElementSibling.remove();
    }
    toggle.addEventListener('click', () => (open ? collapse() : expand()));
    return { tr, expand };
  }

  // drawTreemap draws two levels of the dominator tree below id; clicking
  // an object focuses the page on it.
  async function drawTreemap(s, id, box) {
    let node;
    try { node = await api(`/api/snapshots/${s}/treemap/${id}`); } catch (err) { box.replaceChildren(failure(err)); box.classList.add('failed'); return; }
    // A rectangle is an object, the last of a chain of only children
    // ("(root) › … › global"), or a group of children of one type
    // ("27,947 × RequestContext").
    const label = (o) => {
      if (o.group) return `${count(o.group)} × ${HS.shortName(o.group_type)}`;
      let name = HS.shortName(HS.nameOf(o)) + (o.value ? ' ' + JSON.stringify(o.value.length > 40 ? o.value.slice(0, 40) + '…' : o.value) : '');
      if (o.top) name = HS.shortName(HS.nameOf(o.top)) + (o.skipped > 1 ? ` › … ${count(o.skipped - 1)} › ` : ' › ') + name;
      return (o.edge ? o.edge + ' ' : '') + name;
    };
    // What a rectangle holds itself: its retained size less what its
    // children and the hidden rest show (for a chain, its objects above
    // the last too).
    const itself = (o) => o.retained_bytes - (o.kids || []).reduce((a, k) => a + k.retained_bytes, 0) - (o.hidden_bytes || 0);
    const extra = (o) => {
      const out = [];
      if (o.id !== 'root' && !o.group && itself(o) > 0) out.push({ name: '(itself)', value: itself(o), itemStyle: { color: '#d9d9d9' } });
      if (o.hidden > 0) out.push({ name: `(${count(o.hidden)} more)`, value: o.hidden_bytes, itemStyle: { color: '#bfbfbf' } });
      return out;
    };
    // Level 1 objects show their children (level 2), what they hold
    // themselves and the children the server left out; level 2 objects
    // are leaves.
    const conv = (o, level) => ({
      name: label(o), value: o.retained_bytes, id: o.group ? null : o.id, type: o.group ? o.group_type : null, obj: o,
      children: level === 1 && !o.group && (o.kids || o.hidden) ? [...(o.kids || []).map((k) => conv(k, 2)), ...extra(o)] : undefined,
    });
    const data = [...(node.kids || []).map((k) => conv(k, 1)), ...extra(node)];
    const c = HS.chart(box);
    c.setOption({
      animation: false,
      tooltip: {
        formatter: (info) => {
          const o = info.data.obj;
          const esc = (x) => String(x).replace(/[<&]/g, (ch) => (ch === '<' ? '&lt;' : '&amp;'));
          if (!o) return `${esc(info.name)}: ${bytes(info.value)}`;
          if (o.group) return `${count(o.group)} × ${esc(o.group_type)}, children of one object<br>retained ${bytes(o.retained_bytes)} together; click to list them`;
          const chain = o.top ? `${esc(HS.objectText(o.top))} › ${o.skipped > 1 ? count(o.skipped - 1) + ' more, each the only child of the one before › ' : ''}` : '';
          return `${chain}${esc(HS.objectText(o))}<br>retained ${bytes(o.retained_bytes)}, shallow ${bytes(o.shallow_bytes)}`;
        },
      },
      series: [{
        type: 'treemap', data, nodeClick: false, roam: false, breadcrumb: { show: false },
        width: '100%', height: '100%', top: 0, left: 0,
        label: { show: true, position: 'insideTopLeft', overflow: 'truncate', formatter: (i) => `${i.name}  ${bytes(i.value)}` },
        upperLabel: { show: true, height: 22, formatter: (i) => `${i.name}  ${bytes(i.value)}` },
        levels: [
          { itemStyle: { borderColor: '#fff', borderWidth: 3, gapWidth: 3 } },
          { itemStyle: { borderColorSaturation: 0.6, gapWidth: 1, borderWidth: 1 }, colorSaturation: [0.35, 0.6] },
        ],
      }],
    });
    c.on('click', (info) => {
      if (info.data && info.data.id) go('tree', { s, id: info.data.id });
      else if (info.data && info.data.type) go('summary', { s, q: info.data.type });
    });
    box.dataset.ready = 'true';
  }

  // ---- why ----
  function why(p) {
    const s = snapParam(p, 's', latest());
    // The objects: a selector as the command line takes it (sel), or
    // what a link gives (type, class, value, addr, or id: an object's
    // index in the snapshot).
    const kind = ['sel', 'id', 'type', 'class', 'value', 'addr'].find((k) => p[k]) || 'sel';
    const shown = { sel: p.sel, type: p.type, class: p.class && 'class:' + p.class, value: p.value && 'value:' + p.value, addr: p.addr, id: '' }[kind] || '';
    const input = el('input', { type: 'text', name: 'selector', value: shown, list: 'type-names', size: 48, placeholder: 'a type or name, an id (@47297, 0x7f3a…), value:TEXT, class:NAME' });
    const list = el('datalist', { id: 'type-names' });
    const form = el('form', { class: 'controls', onsubmit: (e) => { e.preventDefault(); go('why', { s, sel: input.value.trim() }); } },
      'snapshot ', snapSelect('s', s, (v) => go('why', { s: v, [kind]: p[kind] })), ' objects ', input, ' ', el('button', { type: 'submit', text: 'why alive?' }), list);
    api(`/api/snapshots/${s}/summary`, { limit: 1000 }).then((r) => list.replaceChildren(...r.rows.map((t) => el('option', { value: t.type })))).catch(() => {});
    const view = [el('h1', { text: 'Why is it alive? Shortest paths from the roots, merged' }), form];
    if (!p[kind]) return view;
    const head = el('p', { class: 'verdict' });
    const objBox = el('div');
    view.push(head, objBox);
    if (kind === 'id') {
      api(`/api/snapshots/${s}/object/${p.id}`).then((info) => {
        input.value = HS.objectText(info.object).replace(/ ".*$/, '');
        const chain = info.dominators.filter((d) => d.id !== 'root');
        objBox.replaceChildren(el('p', {}, objectLink(s, info.object), ` retains ${bytes(info.object.retained_bytes)} (shallow ${bytes(info.object.shallow_bytes)})`,
          chain.length ? el('span', {}, '; dominated by ', chain.map((d, i) => [i ? ' › ' : '', objectLink(s, d)]).flat()) : null));
      }).catch((err) => objBox.replaceChildren(failure(err)));
    }
    const pic = el('div', { class: 'graph-box', 'data-graph': 'why' });
    const t = new Table({
      name: 'why', filter: 'filter paths', limit: 25,
      source: async (q) => {
        const r = await api(`/api/snapshots/${s}/why`, { [kind]: p[kind], q: q.q, sort: q.sort, desc: q.desc ? 1 : '', offset: q.offset, limit: q.limit });
        head.textContent = `${r.selector} selects ${counted(r.selected, 'object')} held by ${counted(r.total, 'path')}` + (r.unreached ? `; ${count(r.unreached)} reached by no path` : '');
        drawPaths(pic, s, r.rows.slice(0, 12));
        return r;
      },
      columns: [
        { key: 'count', label: 'objects', num: true, cell: (r) => count(r.count) },
        { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
        { key: 'path', label: 'held by (e.g. one path: click to see its objects)', sort: false, cell: (r) => holdersCell(r, s, r.count === 1 ? r.sample.text : r.path) },
      ],
    });
    view.push(t.element, section('The sample paths of these groups, drawn (the objects on them, each once)', pic));
    if (kind === 'id') view.push(objectPanes(s, { id: p.id }));
    return view;
  }

  // drawPaths draws the sample paths of why's groups as one picture:
  // their objects each once, from the roots on the left to the selected
  // objects on the right (shortest paths share their beginnings: the
  // picture is a tree).
  function drawPaths(box, s, rows) {
    const root = { label: '(roots)', kids: [] };
    for (const r of rows) {
      const steps = r.sample.steps || [];
      const rootText = [r.sample.root_kind, r.sample.root_name].filter(Boolean).join(' ');
      let at = root;
      const step = (key, make, edge, kind) => {
        let k = at.kids.find((x) => x.key === key);
        if (!k) {
          k = { key, edge, kind, node: make() };
          at.kids.push(k);
        }
        at = k.node;
      };
      step('root:' + rootText, () => ({ label: rootText, kids: [] }), '', '');
      steps.forEach((st, i) => {
        if (st.gap) {
          step('gap:' + i + ':' + (steps[i + 1] || {}).id, () => ({ label: `… ${count(st.gap)} steps …`, kids: [] }), '', '');
          return;
        }
        const last = i === steps.length - 1;
        step(st.id, () => ({
          label: HS.nameOf(st) + HS.idSuffix(st.addr) + (st.steps ? ` ×${count(st.steps)}` : '') + (last && r.count > 1 ? ` (1 of ${count(r.count)})` : ''),
          title: HS.nameOf(st) + HS.idSuffix(st.addr), href: treeLink(s, st.id), cls: last ? 'selected' : null, kids: [],
        }), i === 0 ? '' : st.edge, st.kind);
      });
    }
    if (root.kids.length === 0) { box.replaceChildren(el('p', { class: 'empty', text: 'no path to draw' })); return; }
    box.replaceChildren(HS.treeGraph(root.kids.length === 1 ? root.kids[0].node : root));
    box.dataset.ready = 'true';
  }

  // ---- top ----
  function top(p) {
    const s = snapParam(p, 's', latest());
    const box = el('div', {}, el('p', { class: 'loading', text: 'computing the dominator tree…' }));
    api(`/api/snapshots/${s}/top`).then((d) => {
      const objs = new Table({
        name: 'top-objects', source: HS.localSource(d.objects, (o) => HS.nameOf(o) + ' ' + o.type), limit: 20,
        columns: [
          { key: 'retained_bytes', label: 'retained', num: true, cell: (o) => bytes(o.retained_bytes) },
          { key: 'shallow_bytes', label: 'shallow', num: true, cell: (o) => bytes(o.shallow_bytes) },
          { key: 'type', label: 'object', cell: (o) => objectLink(s, o) },
          { key: 'dominators', label: 'dominated by', sort: false, cell: (o) => (o.dominators.length ? el('span', {}, o.dominators.map((d, i) => [i ? ' › ' : '', el('a', { href: treeLink(s, d.id), text: HS.nameOf(d) })]).flat()) : '-') },
          { key: 'path', label: 'held by', sort: false, cell: (o) => (o.path ? HS.pathView(o.path.text, o.path, stepLink(s)) : '') },
        ],
      });
      const types = new Table({
        name: 'top-types', filter: 'filter by type', limit: 25, source: remote(`/api/snapshots/${s}/types`),
        columns: [
          { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
          { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
          { key: 'shallow_bytes', label: 'shallow', num: true, cell: (r) => bytes(r.shallow_bytes) },
          { key: 'type', label: 'type', cell: (r) => (r.classes ? el('a', { href: whyLink(s, { class: r.classes }), text: `${r.type} (classes ${r.classes})` }) : el('a', { href: whyLink(s, { type: r.type }), text: r.type })) },
        ],
      });
      const parts = [HS.suspectsSection(d.suspects, d.suspect_share, d.reachable_bytes),
        section(`Objects that retain the most (of ${bytes(d.reachable_bytes)} reachable)`, objs.element),
        section('Types that retain the most (each object counted once)', types.element)];
      if (d.held_outside_heap.length) {
        parts.push(section('Held outside the heap (more references than the snapshot shows)', new Table({
          name: 'native', source: HS.localSource(d.held_outside_heap, (r) => r.type), limit: 20,
          columns: [
            { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
            { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
            { key: 'excess_references', label: 'extra refs', num: true, cell: (r) => count(r.excess_references) },
            { key: 'type', label: 'type', cell: (r) => el('a', { href: whyLink(s, { type: r.type }), text: r.type }) },
            { key: 'keeps_text', label: 'keeps', sort: false },
            { key: 'sample', label: 'e.g.', sort: false, cell: (r) => objectLink(s, r.sample) },
          ],
        }).element));
      }
      if (d.unreachable > 0) {
        parts.push(section('Unreachable', el('p', { text: `${count(d.unreachable)} objects (${bytes(d.unreachable_bytes)}) that no root reaches` }),
          new Table({
            name: 'unreachable', source: HS.localSource(d.unreachable_types, (r) => r.type), limit: 10,
            columns: [
              { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
              { key: 'shallow_bytes', label: 'shallow', num: true, cell: (r) => bytes(r.shallow_bytes) },
              { key: 'type', label: 'type' },
            ],
          }).element));
      }
      box.replaceChildren(...parts);
    }).catch((err) => box.replaceChildren(failure(err)));
    return [el('h1', { text: 'What retains the most' }), el('p', { class: 'controls' }, 'snapshot ', snapSelect('s', s, (v) => go('top', { s: v }))), box];
  }

  // ---- duplicates ----
  function duplicates(p) {
    const s = snapParam(p, 's', 0);
    const box = el('div', {}, el('p', { class: 'loading', text: 'comparing objects by value…' }));
    api(`/api/snapshots/${s}/duplicates`).then((d) => {
      const holders = (hs) => hs.map((h) => `${count(h.count)} at ${h.place}${h.one_of_each ? ' (one of each value: lookups in it miss)' : ''}`).join('; ');
      const more = (shown, total, what) => (total > shown ? el('p', { text: `(${count(total - shown)} more ${what} not shown)` }) : null);
      const parts = [
        section('Objects equal by value (one structure built again and again)', new Table({
          name: 'values', source: HS.localSource(d.values, (r) => r.type), limit: 20,
          columns: [
            { key: 'wasted_bytes', label: 'wasted', num: true, cell: (r) => bytes(r.wasted_bytes) },
            { key: 'count', label: 'copies', num: true, cell: (r) => count(r.count) },
            { key: 'distinct', label: 'values', num: true, cell: (r) => count(r.distinct) },
            { key: 'type', label: 'type', cell: (r) => el('a', { href: whyLink(s, { type: r.type }), text: r.type }) },
            { key: 'holders', label: 'held by', sort: false, cell: (r) => holders(r.holders) },
            { key: 'example', label: 'e.g.', sort: false, cell: (r) => el('span', { class: 'object', text: r.example.text }) },
          ],
        }).element, more(d.values.length, d.values_total, 'types')),
        section('Equal strings and byte strings', new Table({
          name: 'strings', source: HS.localSource(d.rows, (r) => r.type + ' ' + (r.value || '')), limit: 20,
          columns: [
            { key: 'wasted_bytes', label: 'wasted', num: true, cell: (r) => bytes(r.wasted_bytes) },
            { key: 'count', label: 'copies', num: true, cell: (r) => count(r.count) },
            { key: 'size_bytes', label: 'each', num: true, cell: (r) => bytes(r.size_bytes) },
            { key: 'type', label: 'type' },
            { key: 'value', label: 'example', sort: false, cell: (r) => (r.value ? JSON.stringify(r.value) : '') },
            { key: 'held_by', label: 'mostly held by', sort: false },
          ],
        }).element, more(d.rows.length, d.groups, 'groups')),
        section('Classes that share one name (a factory makes one per call)', new Table({
          name: 'class-names', source: HS.localSource(d.class_names, (r) => r.name), limit: 20,
          columns: [
            { key: 'count', label: 'classes', num: true, cell: (r) => count(r.count) },
            { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
            { key: 'name', label: 'name', cell: (r) => el('a', { href: whyLink(s, { class: r.name }), text: r.name }) },
            { key: 'metaclass', label: 'metaclass' },
            { key: 'holders', label: 'held by', sort: false, cell: (r) => holders(r.holders) },
          ],
        }).element, more(d.class_names.length, d.class_names_total, 'names')),
      ];
      box.replaceChildren(...parts.filter(Boolean));
    }).catch((err) => box.replaceChildren(failure(err)));
    return [el('h1', { text: 'What is there more than once' }), el('p', { class: 'controls' }, 'snapshot ', snapSelect('s', s, (v) => go('duplicates', { s: v }))), box];
  }

  // ---- leaks ----
  function leaks(p) {
    if (!state.leaks) return [el('h1', { text: 'Leaks' }), el('p', { text: 'Finding leaks takes three snapshots of one process: baseline, target and final.' })];
    const pick = { baseline: snapParam(p, 'baseline', state.leaks[0]), target: snapParam(p, 'target', state.leaks[1]), final: snapParam(p, 'final', state.leaks[2]) };
    const head = el('p', { class: 'verdict' });
    const chartBox = el('div', { id: 'leaks-chart', class: 'chart small' });
    let drawn = false;
    const t = new Table({
      name: 'leaks', filter: 'filter by type or path', limit: 25,
      source: async (q) => {
        const r = await api('/api/leaks', { ...pick, q: q.q, sort: q.sort, desc: q.desc ? 1 : '', offset: q.offset, limit: q.limit });
        head.textContent = r.identity === 'none'
          ? `objects cannot be matched across these snapshots (identity: none): findings are the paths that held more objects in target than in baseline, and no fewer in final; they hold ${count(r.leaked)} objects (${bytes(r.leaked_bytes)})`
          : `identity: ${r.identity}; ${count(r.new)} objects new in target, ${count(r.leaked)} of them still alive in final (${bytes(r.leaked_bytes)})`;
        if (r.suppressed) head.textContent += `; ${count(r.suppressed)} groups set aside as known noise`;
        if (r.total === 0 && !q.q) head.textContent += '. No leak found.';
        if (!drawn) {
          drawn = true;
          if (r.rows.length) HS.barChart(HS.chart(chartBox), r.rows.slice(0, 10).map((x) => ({ name: `${x.type} × ${count(x.count)}`, value: x.retained_bytes })));
          else chartBox.remove();
        }
        return r;
      },
      columns: [
        { key: 'retained_bytes', label: 'retained', num: true, cell: (r) => bytes(r.retained_bytes) },
        { key: 'count', label: 'count', num: true, cell: (r) => count(r.count) },
        { key: 'type', label: 'what leaked, where', cell: (r) => leakWhat(r, pick.final) },
        { key: 'growth', label: 'growth', sort: false, cell: (r) => el('span', { class: 'verdict-' + r.verdict, text: r.growth }) },
        { key: 'path', label: 'held by (click for an example path)', sort: false, cell: (r) => holdersCell(r, pick.final) },
      ],
    });
    const sel = (name) => snapSelect(name, pick[name], (v) => go('leaks', { ...pick, [name]: v }));
    return [el('h1', { text: 'Leaks: created between baseline and target, still alive in final' }),
      el('p', { class: 'controls' }, 'baseline ', sel('baseline'), ' target ', sel('target'), ' final ', sel('final')),
      head, chartBox, t.element];
  }

  // leakWhat shows what a finding's objects are and where (a link to
  // why for its main type), and its parts when it has several.
  function leakWhat(r, s) {
    const link = el('a', { href: whyLink(s, r.classes ? { class: r.classes } : { type: r.type }), text: r.text + (r.noise ? ` [noise: ${r.noise}]` : '') });
    const what = el('span', {}, link, r.detached ? el('span', { class: 'tag', text: 'detached DOM', title: 'these objects are, or hold, DOM nodes no longer in the page' }) : null);
    const copies = r.copies ? el('p', { class: 'copies', text: 'copies: ' + r.copies.text }) : null;
    if (r.parts.length < 2) return copies ? el('div', {}, what, copies) : what;
    return el('div', {}, what, copies, el('details', { class: 'parts' }, el('summary', { text: `${count(r.parts.length)} parts` }),
      el('ul', {}, r.parts.map((x) => el('li', {}, `${x.text}, retained ${bytes(x.retained_bytes)}: `, HS.pathView(x.path, x.sample, stepLink(s)))))));
  }

  // holdersCell shows what holds a finding or a group of why: the path
  // of its one holder, or every holder, what each holds and what
  // removing it alone frees.
  function holdersCell(r, s, text) {
    if (!r.holders || r.holders.length < 2) return HS.pathView(text || r.path, r.sample, stepLink(s));
    return el('div', { class: 'holders' }, HS.pathView(text || r.path, r.sample, stepLink(s)), el('p', { text: r.held_by }),
      el('ul', {}, r.holders.map((h) => el('li', {},
        `${h.text}: holds ${count(h.holds)}, alone frees ${h.frees ? `${count(h.frees)} (${bytes(h.frees_bytes)})` : 'nothing'}${h.bounded ? `; ${h.bounded}` : ''}`,
        h.group ? '' : el('details', { class: 'holder-path' }, el('summary', { text: 'path' }), HS.pathSteps(h.path, stepLink(s)))))));
  }

  // ---- trend ----
  function trend(p) {
    const chartBox = el('div', { id: 'trend-chart', class: 'chart small' });
    const unitSel = el('select', { name: 'unit' }, el('option', { value: 'count', text: 'objects' }), el('option', { value: 'bytes', text: 'bytes' }));
    const plotted = new Map(); // type -> row
    let labels = [], c = null, first = true;
    const draw = () => {
      if (!c) c = HS.chart(chartBox);
      const unit = unitSel.value;
      HS.lineChart(c, labels, [...plotted.values()].map((r) => ({ name: r.type, values: unit === 'bytes' ? r.bytes : r.counts })), unit);
      chartBox.dataset.series = plotted.size;
    };
    unitSel.addEventListener('change', draw);
    // The first screen: what grew in every snapshot, where, and which
    // collections; the program's types before the runtime's.
    const extra = el('div');
    const t = new Table({
      name: 'trend', filter: 'filter by type', limit: 25,
      source: async (q) => {
        const r = await api('/api/trend', { q: q.q, sort: q.sort, desc: q.desc ? 1 : '', offset: q.offset, limit: q.limit });
        labels = r.snapshots.map((x, i) => `${i + 1}: ${HS.basename(x)}`);
        if (first) {
          first = false;
          // Plot the program's types that grow; the runtime's only when
          // the program has none.
          const grows = (row) => row.growth === 'steady' || row.growth === 'growing';
          const program = r.rows.filter((row) => !row.runtime && grows(row));
          (program.length ? program : r.rows).slice(0, 8).forEach((row) => plotted.set(row.type, row));
          draw();
          extra.replaceChildren(
            section('Collections that grew in every snapshot', new Table({
              name: 'trend-collections', source: HS.localSource(r.collections, (x) => x.type + ' ' + x.path), limit: 5,
              columns: [
                { key: 'entries_per_snapshot', label: 'entries per snapshot', num: true, cell: (x) => HS.signedFloat(x.entries_per_snapshot) },
                { key: 'entries', label: 'entries', sort: false, cell: (x) => HS.series(x.entries) },
                { key: 'retained_bytes', label: 'retained', num: true, cell: (x) => bytes(x.retained_bytes) },
                { key: 'type', label: 'type', cell: (x) => HS.nameEl(x.type) },
                { key: 'path', label: 'path', sort: false, cell: (x) => HS.pathView(x.path) },
              ],
            }).element),
            section('Paths that grew in every snapshot', new Table({
              name: 'trend-paths', source: HS.localSource(r.paths, (x) => x.type + ' ' + x.path), limit: 5,
              columns: [
                { key: 'count_per_snapshot', label: 'per snapshot', num: true, cell: (x) => HS.signedFloat(x.count_per_snapshot) },
                { key: 'counts', label: 'counts', sort: false, cell: (x) => HS.series(x.counts) },
                { key: 'type', label: 'type', cell: (x) => HS.nameEl(x.type) },
                { key: 'path', label: 'held by', sort: false, cell: (x) => HS.pathView(x.path) },
              ],
            }).element));
        }
        return r;
      },
      columns: [
        { key: 'plot', label: 'plot', sort: false, cell: (r) => el('input', { type: 'checkbox', checked: plotted.has(r.type), title: 'plot this type', onchange: (e) => { if (e.target.checked) plotted.set(r.type, r); else plotted.delete(r.type); draw(); } }) },
        { key: 'growth', label: 'growth', cell: (r) => el('span', { class: 'growth ' + r.growth, text: HS.growthText(r) }) },
        { key: 'count_per_snapshot', label: 'per snapshot', num: true, cell: (r) => HS.signedFloat(r.count_per_snapshot) },
        { key: 'bytes_per_snapshot', label: 'bytes per snapshot', num: true, cell: (r) => HS.signedBytes(Math.round(r.bytes_per_snapshot)) },
        { key: 'counts', label: 'counts (or bytes)', sort: false, cell: (r) => HS.growthSeries(r) },
        { key: 'type', label: 'type', cell: (r) => el('span', {}, HS.nameEl(r.type), r.runtime ? el('span', { class: 'tag', text: 'runtime', title: 'the runtime\u2019s own machinery: listed after the program\u2019s types' }) : null) },
      ],
    });
    return [el('h1', { text: 'Growth per type over the snapshots' }),
      el('p', { class: 'controls' }, 'plot ', unitSel, ' of the checked types (the program\u2019s types that grow; steady growth is the leak signature)'),
      chartBox, extra, section('Growth per type (the program\u2019s types first)', t.element)];
  }

  const views = { overview, summary, diff, tree, why, top, duplicates, leaks, trend };

  function go(view, params) {
    location.hash = link(view, params);
  }

  function render() {
    const { view, params } = parseHash();
    const fn = views[view] || overview;
    document.querySelectorAll('#nav a').forEach((a) => a.classList.toggle('active', a.dataset.view === view));
    main.querySelectorAll('.chart').forEach((c) => { const i = echarts.getInstanceByDom(c); if (i) i.dispose(); });
    let nodes;
    try { nodes = fn(params); } catch (err) { nodes = [failure(err)]; }
    main.replaceChildren(...[nodes].flat().filter(Boolean));
    main.dataset.view = view;
    // The address this view was drawn for: location.hash changes at once
    // when a link or a click sets it, the view only when hashchange is
    // handled, so a reader of the page tells the two apart with this.
    main.dataset.hash = location.hash;
    window.scrollTo(0, 0);
  }

  async function start() {
    try {
      const r = await api('/api/snapshots');
      state.snaps = r.snapshots;
      state.leaks = r.leaks || null;
    } catch (err) {
      main.replaceChildren(failure(err));
      return;
    }
    const nav = document.getElementById('nav');
    const many = state.snaps.length >= 2;
    const items = [['overview', 'Overview'], ['summary', 'Summary'], many && ['diff', 'Diff'], ['tree', 'Dominator tree'], ['why', 'Why alive'], ['top', 'Top'], ['duplicates', 'Duplicates'], state.leaks && ['leaks', 'Leaks'], many && ['trend', 'Trend']].filter(Boolean);
    nav.replaceChildren(...items.map(([v, label]) => el('a', { href: '#/' + v, 'data-view': v, text: label })));
    window.addEventListener('hashchange', render);
    render();
  }
  start();
})();
