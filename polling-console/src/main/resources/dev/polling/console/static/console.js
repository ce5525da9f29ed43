// The polling console: renders /actuator/console/api/state and asks /api/changes every few seconds,
// loading the state again only when its version changed. No framework, no build step.
const base = location.pathname.replace(/\/+$/, '');
let version = null;
let refreshMillis = 3000;
let timer = null;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child == null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function duration(millis) {
  if (millis == null) return '–';
  const s = Math.round(millis / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min ${s % 60} s`;
  const minutes = Math.floor((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${minutes ? ` ${minutes} min` : ''}`;
}

function time(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : '–';
}

function csrfHeaders() {
  // Spring Security's cookie token repository, when the application uses one
  const match = document.cookie.match(/(?:^|;\s*)XSRF-TOKEN=([^;]+)/);
  return match ? { 'X-XSRF-TOKEN': decodeURIComponent(match[1]) } : {};
}

function say(text, isError = false) {
  const message = document.getElementById('message');
  message.textContent = text;
  message.className = isError ? 'error' : '';
}

const ACTION_LABELS = { retry: 'Retry', discard: 'Discard', delivered: 'Mark delivered', resend: 'Resend', requeue: 'Requeue' };
const NOUNS = { messages: ['message', 'messages'], deliveries: ['delivery', 'deliveries'], jobs: ['job', 'jobs'] };

function noun(kind, count = 1) {
  const [one, many] = NOUNS[kind] || ['entry', 'entries'];
  return count === 1 ? one : many;
}

async function post(path, body) {
  const response = await fetch(`${base}/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...csrfHeaders() },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  let answer = {};
  try { answer = await response.json(); } catch (e) { /* no body */ }
  return { response, answer };
}

async function actOn(button, kind, id, action) {
  button.disabled = true;
  try {
    const { response, answer } = await post(`${kind}/${encodeURIComponent(id)}`, { action });
    if (response.ok) say(`Done: ${answer.done}.`);
    else say(`${ACTION_LABELS[action] || action} of ${id} refused (${response.status}): ${answer.error || response.statusText}`, true);
  } catch (e) {
    say(`${action} of ${id} failed: ${e.message}`, true);
  } finally {
    await load();
  }
}

async function bulk(button, view, group, count) {
  button.disabled = true;
  try {
    const { response, answer } = await post(`${view.kind}/bulk`, { action: view.bulk.action, group, count });
    if (response.ok) say(`Done: ${answer.done}.`);
    else say(`${view.bulk.label} of ${group} refused (${response.status}): ${answer.error || response.statusText}`, true);
  } catch (e) {
    say(`${view.bulk.label} of ${group} failed: ${e.message}`, true);
  } finally {
    await load();
  }
}

function cell(key, value) {
  if (value == null) return '–';
  return key.endsWith('At') ? new Date(value).toLocaleString() : String(value);
}

function table(caption, columns, rows, extra, cellOf = (c, row) => cell(c.key, row[c.key])) {
  return el('div', { class: 'table-wrap' }, el('table', {},
    el('caption', { class: 'visually-hidden' }, caption),
    el('thead', {}, el('tr', {}, columns.map((c) => el('th', { scope: 'col' }, c.label)), extra ? el('th', { scope: 'col' }, extra.label) : null)),
    el('tbody', {}, rows.map((row) => el('tr', { 'data-id': row.id != null ? String(row.id) : null },
      columns.map((c) => el('td', { 'data-column': c.key }, cellOf(c, row))),
      extra ? el('td', {}, extra.cell(row)) : null)))));
}

// Lists an operator filtered or paged keep that view across the page's own reloads, and so does
// what the operator is typing into a list's filters (and the field they are in).
const lists = new Map();
const formDrafts = new Map();

function keepFocus(replace) {
  const active = document.activeElement;
  const field = active && active.form && active.form.id ? [active.form.id, active.name] : null;
  replace();
  if (field) {
    const form = document.getElementById(field[0]);
    const input = form && form.elements[field[1]];
    if (input && document.activeElement !== input) input.focus();
  }
}

async function fetchPage(kind, query) {
  const params = new URLSearchParams({ state: query.state, after: String(query.after || 0) });
  if (query.group) params.set('group', query.group);
  if (query.key) params.set('key', query.key);
  const response = await fetch(`${base}/api/${encodeURIComponent(kind)}/entries?${params}`,
    { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

async function showDetail(container, kind, id) {
  const region = container.querySelector('.detail');
  try {
    const response = await fetch(`${base}/api/${encodeURIComponent(kind)}/entries/${encodeURIComponent(id)}`,
      { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    const entry = await response.json().catch(() => ({}));
    if (!response.ok) {
      region.replaceChildren(el('p', { class: 'error' }, entry.error || response.statusText));
    } else {
      const close = el('button', { type: 'button', class: 'close', onclick: () => { region.replaceChildren(); region.hidden = true; } }, 'Close');
      region.replaceChildren(el('h5', { tabindex: '-1' }, `${noun(kind)} ${id}`),
        el('dl', { class: 'facts' }, Object.entries(entry).flatMap(([k, v]) => [el('dt', {}, k), el('dd', { 'data-field': k }, cell(k, v))])),
        close);
    }
    region.hidden = false;
    region.querySelector('h5, p')?.focus();
  } catch (e) {
    say(`Could not load ${noun(kind)} ${id}: ${e.message}`, true);
  }
}

function renderList(view, list, index, canAct) {
  const id = `${view.kind}-${index}`;
  const saved = lists.get(id);
  const page = saved?.page || list;
  const container = el('div', { class: 'entry-list', 'data-state': page.state, 'data-list': id });
  const formId = `filter-${id}`;
  const draft = formDrafts.get(id);
  const chosen = draft?.state || page.state;
  const form = el('form', { class: 'filters', id: formId, 'aria-label': `Filter the list ${list.title}` },
    el('label', {}, 'State ', el('select', { name: 'state' },
      page.states.map((st) => el('option', { value: st, selected: st === chosen }, st)))),
    page.filters.map((f) => el('label', {}, `${f.label} `, el('input', { name: f.key, type: 'text', size: '14',
      value: draft?.[f.key] ?? saved?.query?.[f.key] ?? '' }))),
    el('button', { type: 'submit' }, 'Show'),
    saved ? el('button', { type: 'button', 'data-reset': '', onclick: () => { lists.delete(id); formDrafts.delete(id); load(); } }, 'Reset') : null);
  const remember = () => formDrafts.set(id, Object.fromEntries(new FormData(form)));
  form.addEventListener('input', remember);
  form.addEventListener('change', remember);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formDrafts.delete(id);
    const data = new FormData(form);
    const query = { state: data.get('state'), group: data.get('group') || '', key: data.get('key') || '', after: 0 };
    await openPage(id, view, list, index, canAct, container, { query, cursors: [0] });
  });
  const position = saved && saved.cursors.length > 1 ? `, page ${saved.cursors.length}` : '';
  const heading = el('h4', {}, `${page.title}: ${page.entries.length === 0 ? 'none' : `${page.entries.length}${page.next != null ? ' shown' : ''}`}${position}`);
  const idCell = (c, row) => c.key === 'id'
    ? el('button', { type: 'button', class: 'link', 'data-detail': String(row.id), 'aria-label': `Show ${noun(view.kind)} ${row.id}`,
      onclick: () => showDetail(container, view.kind, row.id) }, String(row.id))
    : cell(c.key, row[c.key]);
  const rows = page.entries.length === 0 ? el('p', {}, 'None.')
    : table(page.title, page.columns, page.entries, canAct && page.actions.length > 0 ? {
      label: 'Actions',
      cell: (row) => page.actions.map((a) => el('button', { type: 'button', 'data-action': a, 'data-id': String(row.id),
        'aria-label': `${ACTION_LABELS[a] || a} ${noun(view.kind)} ${row.id}`,
        onclick: (e) => actOn(e.currentTarget, view.kind, row.id, a) }, ACTION_LABELS[a] || a)),
    } : null, idCell);
  const pager = el('div', { class: 'pager' },
    saved && saved.cursors.length > 1 ? el('button', { type: 'button', 'data-page': 'previous',
      onclick: () => openPage(id, view, list, index, canAct, container, { ...saved, cursors: saved.cursors.slice(0, -1) }) }, 'Previous page') : null,
    page.next != null ? el('button', { type: 'button', 'data-page': 'next',
      onclick: () => openPage(id, view, list, index, canAct, container,
        { query: saved?.query || { state: page.state, group: '', key: '' }, cursors: [...(saved?.cursors || [0]), page.next] }) }, 'Next page') : null);
  container.replaceChildren(heading, form, rows, pager, el('div', { class: 'detail', role: 'region', 'aria-label': `Details of a ${noun(view.kind)}`, hidden: true }));
  return container;
}

async function openPage(id, view, list, index, canAct, container, saved) {
  try {
    const page = await fetchPage(view.kind, { ...saved.query, after: saved.cursors[saved.cursors.length - 1] });
    lists.set(id, { ...saved, page });
    const current = document.querySelector(`[data-list="${CSS.escape(id)}"]`) || container;
    current.replaceWith(renderList(view, list, index, canAct));
    document.querySelector(`[data-list="${CSS.escape(id)}"] h4`)?.setAttribute('tabindex', '-1');
    document.querySelector(`[data-list="${CSS.escape(id)}"] h4`)?.focus();
  } catch (e) {
    say(`Could not list ${noun(view.kind, 2)}: ${e.message}`, true);
  }
}

// A bulk action waiting for its confirmation survives the page's reloads with the count the operator was shown.
const pendingBulk = new Map();

function renderSection(view, state) {
  const canAct = state.actions.enabled && state.actions.allowed;
  const bulkCell = (row) => {
    const count = row[view.bulk.countKey];
    const group = row[view.bulk.groupKey];
    const pending = pendingBulk.get(`${view.kind}/${group}`);
    if (!count && pending == null) return '';
    const holder = el('span', { class: 'bulk' });
    const ask = () => el('button', { type: 'button', 'data-bulk': group,
      'aria-label': `${view.bulk.label} ${noun(view.kind, 2)} of ${group} (${count})`,
      onclick: () => {
        pendingBulk.set(`${view.kind}/${group}`, count);
        holder.replaceChildren(...confirmation(count));
        holder.querySelector('[data-confirm]').focus();
      } }, `${view.bulk.label} (${count})`);
    const confirmation = (shown) => [el('span', {}, `${view.bulk.label}: ${shown} ${noun(view.kind, shown)} of ${group}? `),
      el('button', { type: 'button', 'data-confirm': String(shown), onclick: (e) => {
        pendingBulk.delete(`${view.kind}/${group}`);
        bulk(e.currentTarget, view, group, shown);
      } }, `Confirm ${shown}`),
      ' ', el('button', { type: 'button', onclick: () => { pendingBulk.delete(`${view.kind}/${group}`); holder.replaceChildren(ask()); } }, 'Cancel')];
    if (pending != null) holder.append(...confirmation(pending));
    else holder.append(ask());
    return holder;
  };
  const stats = view.stats.length === 0 ? el('p', { 'data-section-stats': '' }, 'Empty: nothing waiting, failed or dead.')
    : table(`${view.title}: counts by state`, view.columns, view.stats,
      canAct && view.bulk ? { label: 'Bulk', cell: bulkCell } : null);
  stats.setAttribute('data-section-stats', '');
  const entryLists = view.lists.map((list, index) => renderList(view, list, index, canAct));
  for (const [index, list] of view.lists.entries()) {
    const id = `${view.kind}-${index}`;
    const saved = lists.get(id);
    if (saved) { // the operator's filtered or paged view, read again
      fetchPage(view.kind, { ...saved.query, after: saved.cursors[saved.cursors.length - 1] })
        .then((page) => {
          lists.set(id, { ...saved, page });
          keepFocus(() => document.querySelector(`[data-list="${CSS.escape(id)}"]`)?.replaceWith(renderList(view, list, index, canAct)));
        })
        .catch((e) => say(`Could not list ${noun(view.kind, 2)}: ${e.message}`, true));
    }
  }
  return el('article', { class: 'cluster section', 'data-section': view.kind, 'aria-labelledby': `section-${view.kind}` },
    el('h3', { id: `section-${view.kind}` }, view.title), stats, entryLists);
}

async function act(button, cluster, action) {
  button.disabled = true;
  try {
    const response = await fetch(`${base}/clusters/${encodeURIComponent(cluster)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...csrfHeaders() },
      body: JSON.stringify({ action }),
      credentials: 'same-origin',
    });
    let body = {};
    try { body = await response.json(); } catch (e) { /* no body */ }
    if (response.ok) {
      say({
        pause: `Cluster ${cluster} paused: a peer takes it over after the running cycle.`,
        resume: `Cluster ${cluster} resumed: this instance competes for it again.`,
        'hand-over': `Cluster ${cluster} handed over: a peer takes it after the running cycle; this instance holds back for one wait time.`,
      }[action]);
    } else {
      say(`${action} of ${cluster} refused (${response.status}): ${body.error || response.statusText}`, true);
    }
  } catch (e) {
    say(`${action} of ${cluster} failed: ${e.message}`, true);
  } finally {
    await load();
  }
}

function renderProblems(problems) {
  const list = document.getElementById('problem-list');
  if (problems.length === 0) {
    list.replaceChildren(el('p', { class: 'none' }, 'No problems.'));
    return;
  }
  list.replaceChildren(...problems.map((p) => el('div', { class: `problem ${p.severity}`, 'data-problem': p.code, 'data-cluster': p.cluster },
    el('p', {}, el('strong', {}, `${p.severity === 'error' ? 'Error' : 'Warning'} · ${p.cluster}: `), p.title),
    el('p', {}, el('em', {}, 'What to do: '), p.fix))));
}

function holderText(c, instanceId) {
  if (c.holder.kind === 'this-instance') return `this instance (${instanceId})`;
  if (c.holder.kind === 'peer') return `instance ${c.holder.instanceId}`;
  return 'unknown (no instance answered holding it)';
}

function renderCluster(c, state) {
  const canAct = state.actions.enabled && state.actions.allowed;
  const badge = c.holding ? el('span', { class: 'badge holding' }, 'holding')
    : el('span', { class: 'badge standby' }, 'standby');
  const flags = [
    c.paused ? el('span', { class: 'badge paused' }, 'paused') : null,
    c.handingOver ? el('span', { class: 'badge handing-over' }, 'handing over') : null,
  ];
  const actions = canAct ? el('div', { class: 'actions' },
    c.holding && !c.handingOver && !c.paused && c.coordination !== 'standalone'
      ? el('button', { type: 'button', 'data-action': 'hand-over',
        'aria-label': `Hand cluster ${c.id} over to a peer (after the running cycle; not paused)`,
        onclick: (e) => act(e.currentTarget, c.id, 'hand-over') }, 'Hand over') : null,
    c.paused
      ? el('button', { type: 'button', 'data-action': 'resume', 'aria-label': `Resume cluster ${c.id} on this instance`,
        onclick: (e) => act(e.currentTarget, c.id, 'resume') }, 'Resume')
      : el('button', { type: 'button', 'data-action': 'pause', 'aria-label': `Pause cluster ${c.id} on this instance (hand it over)`,
        onclick: (e) => act(e.currentTarget, c.id, 'pause') }, 'Pause')) : null;
  const d = c.lastDecision;
  const facts = el('dl', { class: 'facts' },
    el('dt', {}, 'Holder'), el('dd', { class: 'holder' }, holderText(c, state.instanceId)),
    el('dt', {}, 'Holder since'), el('dd', {}, c.holder.since ? `${time(c.holder.since)} (as seen here)` : '–'),
    el('dt', {}, 'Holder\u2019s last activity'), el('dd', {}, c.holder.elapsedMillis != null ? `${duration(c.holder.elapsedMillis)} ago` : '–'),
    el('dt', {}, 'Coordination'), el('dd', {}, c.coordination + (c.coordinator ? ` (${c.coordinator})` : '')),
    c.fencingToken != null ? [el('dt', {}, 'Fencing token'), el('dd', {}, String(c.fencingToken))] : null,
    el('dt', {}, 'Wait time'), el('dd', {}, duration(c.waitTimeMillis)),
    el('dt', {}, 'Cycle'), el('dd', {}, c.cycleRunning ? `running for ${duration(c.cycleRunningMillis)}${c.cycleOverrunning ? ' (overrunning)' : ''}` : 'not running here'),
    el('dt', {}, 'Last decision'), el('dd', { class: 'decision' }, d ? `${d.outcome}: ${d.reason} at ${time(d.decidedAt)}${d.detail ? ' — ' + d.detail : ''}` : 'none yet'));
  const why = c.whyNotMe ? el('p', { class: 'why', 'data-why-not-me': '' }, el('strong', {}, 'Why not this instance: '), c.whyNotMe) : null;
  const peers = c.peers.length === 0 ? el('p', {}, 'No peers (standalone or coordinated without peers).')
    : el('div', { class: 'table-wrap' }, el('table', { class: 'peers' },
      el('caption', { class: 'visually-hidden' }, `Peers of ${c.id}`),
      el('thead', {}, el('tr', {}, ['Peer', 'Address', 'State', 'Instance', 'Last activity', 'Detail'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, c.peers.map((p) => el('tr', { 'data-peer': p.id },
        el('td', {}, p.id), el('td', {}, p.address),
        el('td', { class: 'peer-state' }, p.state + (p.fault ? ` (${p.fault})` : '') + (p.holding ? ', holding' : '')),
        el('td', {}, p.instanceId || '–'), el('td', {}, p.elapsedMillis != null ? `${duration(p.elapsedMillis)} ago` : '–'),
        el('td', {}, p.detail || ''))))));
  const timeline = el('details', { class: 'timeline' }, el('summary', {}, `Timeline (${c.timeline.length} latest of the last ${duration(state.timelineRetentionMillis)} on this instance)`),
    el('div', { class: 'table-wrap' }, el('table', {},
      el('thead', {}, el('tr', {}, ['When', 'What', 'Detail'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, c.timeline.map((t) => el('tr', { 'data-kind': t.kind },
        el('td', {}, time(t.at) + (t.repeats > 1 ? ` – ${time(t.lastAt)}` : '')),
        el('td', {}, t.text + (t.repeats > 1 ? ` (×${t.repeats})` : '')),
        el('td', {}, t.detail || '')))))));
  return el('article', { class: 'cluster', 'data-cluster': c.id, 'aria-labelledby': `cluster-${c.id}` },
    el('div', { class: 'cluster-head' },
      el('h3', { id: `cluster-${c.id}` }, `${c.name}`, c.name !== c.id ? ` (${c.id})` : '', ' ', badge, ' ', flags),
      actions),
    why, facts, el('h4', {}, 'Peers'), peers, timeline);
}

function render(state) {
  refreshMillis = state.refreshMillis;
  version = state.version;
  const mode = !state.actions.enabled ? 'read-only' : state.actions.allowed ? 'actions enabled' : 'read-only for you';
  document.getElementById('instance').textContent =
    `Instance ${state.instanceId}${state.standalone ? ' (standalone)' : ''} · ${mode} · updated ${time(state.asOf)}`;
  renderProblems(state.problems);
  const openTimelines = new Set([...document.querySelectorAll('article.cluster details[open]')].map((d) => d.closest('article').dataset.cluster));
  keepFocus(() => {
    document.getElementById('cluster-list').replaceChildren(...state.clusters.map((c) => renderCluster(c, state)));
    document.getElementById('section-list').replaceChildren(...state.sections.map((v) => renderSection(v, state)));
  });
  for (const id of openTimelines) {
    const details = document.querySelector(`article.cluster[data-cluster="${CSS.escape(id)}"] details`);
    if (details) details.open = true;
  }
  const sections = document.getElementById('sections');
  sections.hidden = state.sections.length === 0;
  document.body.dataset.version = state.version;
}

async function load() {
  const response = await fetch(`${base}/api/state`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  if (!response.ok) {
    say(`Could not load the console's data (${response.status}).`, true);
    return;
  }
  render(await response.json());
}

async function poll() {
  try {
    const response = await fetch(`${base}/api/changes`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (response.ok) {
      const changes = await response.json();
      if (changes.version !== version) await load();
    }
  } catch (e) {
    say(`Lost contact with the application: ${e.message}`, true);
  } finally {
    timer = setTimeout(poll, refreshMillis);
  }
}

load().then(() => { timer = setTimeout(poll, refreshMillis); });
