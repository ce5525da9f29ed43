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

const ACTION_LABELS = { retry: 'Retry', discard: 'Discard', delivered: 'Mark delivered', resend: 'Resend' };

async function actOn(button, kind, id, action) {
  button.disabled = true;
  try {
    const response = await fetch(`${base}/${kind}/${encodeURIComponent(id)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...csrfHeaders() },
      body: JSON.stringify({ action }),
      credentials: 'same-origin',
    });
    let body = {};
    try { body = await response.json(); } catch (e) { /* no body */ }
    if (response.ok) say(`Done: ${body.done}.`);
    else say(`${ACTION_LABELS[action] || action} of ${id} refused (${response.status}): ${body.error || response.statusText}`, true);
  } catch (e) {
    say(`${action} of ${id} failed: ${e.message}`, true);
  } finally {
    await load();
  }
}

function cell(key, value) {
  if (value == null) return '–';
  return key.endsWith('At') ? new Date(value).toLocaleString() : String(value);
}

function table(caption, columns, rows, extra) {
  return el('div', { class: 'table-wrap' }, el('table', {},
    el('caption', { class: 'visually-hidden' }, caption),
    el('thead', {}, el('tr', {}, columns.map((c) => el('th', { scope: 'col' }, c.label)), extra ? el('th', { scope: 'col' }, extra.label) : null)),
    el('tbody', {}, rows.map((row) => el('tr', { 'data-id': row.id != null ? String(row.id) : null },
      columns.map((c) => el('td', { 'data-column': c.key }, cell(c.key, row[c.key]))),
      extra ? el('td', {}, extra.cell(row)) : null)))));
}

function renderSection(view, state) {
  const canAct = state.actions.enabled && state.actions.allowed;
  const stats = view.stats.length === 0 ? el('p', {}, 'Empty: nothing waiting, failed or dead.')
    : table(`${view.title}: counts by state`, view.columns, view.stats);
  const lists = view.lists.map((list) => el('div', { class: 'entry-list', 'data-state': list.state },
    el('h4', {}, `${list.title}: ${list.entries.length === list.limit ? `the oldest ${list.limit}` : list.entries.length}`),
    list.entries.length === 0 ? el('p', {}, 'None.')
      : table(list.title, list.columns, list.entries, canAct ? {
        label: 'Actions',
        cell: (row) => list.actions.map((a) => el('button', { type: 'button', 'data-action': a, 'data-id': String(row.id),
          'aria-label': `${ACTION_LABELS[a] || a} ${view.kind === 'messages' ? 'message' : 'delivery'} ${row.id}`,
          onclick: (e) => actOn(e.currentTarget, view.kind, row.id, a) }, ACTION_LABELS[a] || a)),
      } : null)));
  return el('article', { class: 'cluster section', 'data-section': view.kind, 'aria-labelledby': `section-${view.kind}` },
    el('h3', { id: `section-${view.kind}` }, view.title), stats, lists);
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
  document.getElementById('cluster-list').replaceChildren(...state.clusters.map((c) => renderCluster(c, state)));
  for (const id of openTimelines) {
    const details = document.querySelector(`article.cluster[data-cluster="${CSS.escape(id)}"] details`);
    if (details) details.open = true;
  }
  const sections = document.getElementById('sections');
  sections.hidden = state.sections.length === 0;
  document.getElementById('section-list').replaceChildren(...state.sections.map((v) => renderSection(v, state)));
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
