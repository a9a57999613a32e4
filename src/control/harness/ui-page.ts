import { RUNS_SCRIPT, RUNS_SECTIONS, RUNS_STYLE } from './ui-page-runs.js';

/**
 * The inspector page: one HTML document with its script inline (no framework, no build step). It
 * reads only the control plane's own endpoints, and writes every value with textContent, so
 * nothing a request carried can become markup.
 */

const STYLE = `
body { font: 14px system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f6f6f8; }
header { display: flex; gap: 24px; align-items: center; padding: 10px 16px; background: #1d1d1f; color: #fff; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0; }
main { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; padding: 12px; }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; overflow: auto; max-height: 420px; }
section.wide { grid-column: 1 / 3; }
h2 { font-size: 14px; margin: 4px 0 8px; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 2px 6px; border-bottom: 1px solid #eee; white-space: nowrap; }
.bad { color: #b00020; } .faulted { background: #fff3cd; }
input, select, button { font: inherit; }
form { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 8px; }
`;

const SCRIPT = `
const $ = (selector) => document.querySelector(selector);
const api = async (method, path, body) => {
  const response = await fetch('/_emulator' + path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    $('#message').textContent = (parsed && parsed.error) || response.statusText;
    throw new Error($('#message').textContent);
  }
  $('#message').textContent = '';
  return parsed;
};
const cell = (row, value, className) => {
  const td = row.insertCell();
  td.textContent = value === null || value === undefined ? '' : String(value);
  if (className) td.className = className;
  return td;
};
const button = (td, label, onClick) => {
  const b = document.createElement('button');
  b.textContent = label;
  b.type = 'button';
  b.addEventListener('click', onClick);
  td.append(b);
  return b;
};
const fill = (selector, rows, columns) => {
  const body = $(selector + ' tbody');
  body.replaceChildren();
  for (const item of rows) { const row = body.insertRow(); for (const column of columns) cell(row, column(item)); }
};

async function refreshWorld() {
  const world = await api('GET', '/ui/world');
  fill('#organizations', world.organizations.rows, [(o) => o.name, (o) => o.email]);
  const version = (w) => w['current-state-version'];
  fill('#workspaces', world.workspaces.rows, [
    (w) => w.organization,
    (w) => w.name,
    (w) => (w.locked ? 'locked' : ''),
    (w) => (version(w) ? version(w).id + ' (serial ' + version(w).serial + ')' : ''),
  ]);
  fill('#modules', world.modules.rows, [(m) => m.registry, (m) => m.namespace + '/' + m.name + '/' + m.provider, (m) => m.status]);
  fill('#mounts', world.mounts.rows, [(m) => m.path, (m) => m.type, (m) => m.description]);
  fill('#leases', world.leases.rows, [(l) => l.id, (l) => l['expires-at'], (l) => l['expires-in-seconds'] + ' s']);
  for (const kind of ['organizations', 'workspaces', 'modules', 'mounts', 'leases'])
    $('#' + kind + '-total').textContent = world[kind].total;
}

async function refreshClock() {
  const clock = await api('GET', '/clock');
  $('#clock').textContent = clock.now;
}

async function refreshFaults() {
  const { faults } = await api('GET', '/faults');
  const body = $('#faults tbody');
  body.replaceChildren();
  for (const rule of faults) {
    const row = body.insertRow();
    row.dataset.id = rule.id;
    cell(row, rule.id);
    cell(row, [rule.prefix, rule.method, rule.path].filter(Boolean).join(' ') || 'every request');
    cell(row, rule.effect + (rule.status ? ' ' + rule.status : '') + (rule.delay ? ' +' + rule.delay + ' ms' : ''));
    cell(row, rule.applied + ' / ' + rule.matched + (rule.times ? ' (of ' + rule.times + ')' : ''));
    cell(row, rule.active ? 'active' : 'spent');
    button(row.insertCell(), 'Remove', async () => { await api('DELETE', '/faults/' + rule.id); refreshFaults(); });
  }
}

async function refreshSnapshots() {
  const { snapshots } = await api('GET', '/snapshots');
  const body = $('#snapshots tbody');
  body.replaceChildren();
  for (const snapshot of snapshots) {
    const row = body.insertRow();
    cell(row, snapshot.name);
    cell(row, snapshot['created-at']);
    cell(row, Math.round(snapshot['size-bytes'] / 1024) + ' KiB');
    const actions = row.insertCell();
    button(actions, 'Restore', async () => {
      await api('POST', '/snapshots/' + encodeURIComponent(snapshot.name) + '/restore');
      refreshAll();
    });
    button(actions, 'Delete', async () => { await api('DELETE', '/snapshots/' + encodeURIComponent(snapshot.name)); refreshSnapshots(); });
  }
}

let stream;
function addEntry(entry) {
  const body = $('#journal tbody');
  const row = body.insertRow(0);
  row.dataset.path = entry.path;
  row.dataset.status = entry.status === null ? '' : String(entry.status);
  if (entry.fault) row.className = 'faulted';
  cell(row, entry.time.slice(11, 23));
  cell(row, entry.method);
  cell(row, entry.path);
  cell(row, entry.status === null ? 'no answer' : entry.status, entry.status === null || entry.status >= 400 ? 'bad' : '');
  cell(row, entry['duration-ms'] + ' ms');
  cell(row, entry['token-accessor']);
  cell(row, entry.fault ? entry.fault.effect + ' (' + entry.fault.rule + ')' : '');
  while (body.rows.length > 200) body.deleteRow(body.rows.length - 1);
}
async function watchJournal() {
  if (stream) stream.close();
  $('#journal tbody').replaceChildren();
  const filter = new URLSearchParams();
  for (const name of ['prefix', 'method', 'path']) { const value = $('#journal-' + name).value.trim(); if (value) filter.set(name, value); }
  filter.set('limit', '50');
  const { requests } = await api('GET', '/requests?' + filter);
  for (const entry of requests) addEntry(entry);
  filter.delete('limit');
  filter.set('since', String(requests.length ? requests[requests.length - 1].id : 0));
  stream = new EventSource('/_emulator/requests/stream?' + filter);
  stream.addEventListener('request', (event) => addEntry(JSON.parse(event.data)));
}

${RUNS_SCRIPT}
function refreshAll() {
  const parts = [refreshWorld(), refreshClock(), refreshFaults(), refreshSnapshots(), refreshRuns(), refreshRun()];
  return Promise.all(parts).catch(() => undefined);
}

$('#advance').addEventListener('submit', async (event) => {
  event.preventDefault();
  await api('POST', '/clock', { advance: $('#advance-by').value });
  refreshAll();
});
$('#snapshot').addEventListener('submit', async (event) => {
  event.preventDefault();
  await api('POST', '/snapshots', { name: $('#snapshot-name').value, replace: true });
  refreshSnapshots();
});
$('#journal-filter').addEventListener('submit', (event) => { event.preventDefault(); watchJournal(); });
$('#fault-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const rule = {};
  for (const name of ['prefix', 'method', 'path']) { const value = $('#fault-' + name).value.trim(); if (value) rule[name] = value; }
  const effect = $('#fault-effect').value;
  const amount = Number($('#fault-amount').value);
  if (effect === 'status') rule.status = amount; else if (effect === 'delay') rule.delay = amount; else rule[effect] = true;
  if ($('#fault-times').value) rule.times = Number($('#fault-times').value);
  await api('POST', '/faults', rule);
  refreshFaults();
});
refreshAll();
watchJournal();
setInterval(refreshAll, 3000);
document.body.dataset.ready = 'true';
`;

const table = (id: string, title: string, columns: string[], total = true) =>
  `<section id="${id}"><h2>${title}${total ? ` (<span id="${id}-total"></span>)` : ''}</h2><table><thead><tr>${columns
    .map((column) => `<th>${column}</th>`)
    .join('')}</tr></thead><tbody></tbody></table></section>`;

/** The inspector document; `nonce` admits its one inline script under the page's CSP. */
export function inspectorPage(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>understudy inspector</title><style>${STYLE}${RUNS_STYLE}</style></head>
<body>
<header>
  <h1>understudy</h1>
  <span>clock <b id="clock"></b></span>
  <form id="advance"><input id="advance-by" value="1h" size="6" aria-label="advance by"><button>Advance</button></form>
  <form id="snapshot"><input id="snapshot-name" placeholder="snapshot name" size="14"><button>Take snapshot</button></form>
  <span id="message" class="bad"></span>
</header>
<main>
  ${RUNS_SECTIONS}
  <section class="wide" id="journal"><h2>Requests (live)</h2>
    <form id="journal-filter">
      <input id="journal-prefix" placeholder="prefix: /api/v2, /v1"><input id="journal-method" placeholder="method" size="6">
      <input id="journal-path" placeholder="path glob: /v1/secret/**"><button>Filter</button>
    </form>
    <table><thead><tr><th>time</th><th>method</th><th>path</th><th>status</th><th>duration</th><th>token accessor</th><th>fault</th></tr>
    </thead><tbody></tbody></table>
  </section>
  <section id="fault-rules"><h2>Fault rules</h2>
    <form id="fault-form">
      <input id="fault-prefix" placeholder="prefix" size="8"><input id="fault-method" placeholder="method" size="6">
      <input id="fault-path" placeholder="path glob" size="14">
      <select id="fault-effect"><option>status</option><option>delay</option><option>reset</option><option>timeout</option></select>
      <input id="fault-amount" placeholder="status / ms" size="6" value="503"><input id="fault-times" placeholder="times" size="4">
      <button>Add rule</button>
    </form>
    <table id="faults"><thead><tr><th>id</th><th>matches</th><th>effect</th><th>applied / matched</th><th></th><th></th></tr></thead>
    <tbody></tbody></table>
  </section>
  ${table('snapshots', 'Snapshots', ['name', 'taken', 'size', ''], false)}
  ${table('organizations', 'Organizations', ['name', 'email'])}
  ${table('workspaces', 'Workspaces', ['organization', 'name', 'lock', 'current state version'])}
  ${table('modules', 'Registry modules', ['registry', 'module', 'status'])}
  ${table('mounts', 'Secrets mounts', ['path', 'type', 'description'])}
  ${table('leases', 'Leases', ['id', 'expires (emulated clock)', 'in'])}
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>`;
}

/** The login form shown when a control token is set and the browser has not presented it. */
export function loginPage(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>understudy: sign in</title><style>${STYLE}</style></head>
<body><main><section class="wide"><h2>The control plane is guarded by UNDERSTUDY_CONTROL_TOKEN</h2>
<form id="login"><input id="token" type="password" placeholder="control token" autocomplete="current-password">
<button>Sign in</button><span id="message" class="bad"></span></form>
</section></main>
<script nonce="${nonce}">
document.querySelector('#login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const response = await fetch('/_emulator/ui/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: document.querySelector('#token').value }),
  });
  if (response.ok) location.reload(); else document.querySelector('#message').textContent = 'that is not the control token';
});
</script></body></html>`;
}
