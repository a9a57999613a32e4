/**
 * The inspector's runs: a list (newest first, for a workspace or organization, as the `/app/…`
 * links ask) and one run's view (timeline, events, plan and apply logs, task stages, policy
 * checks). Part of the inspector page's one inline script; values are written with textContent.
 */

export const RUNS_STYLE = `
h3 { font-size: 13px; margin: 10px 0 4px; }
pre { background: #f6f6f8; border: 1px solid #eee; padding: 6px; max-height: 320px; overflow: auto; white-space: pre-wrap; margin: 0; }
#run .columns { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
section#run { max-height: none; }
`;

const table = (id: string, columns: string[]) =>
  `<table id="${id}"><thead><tr>${columns.map((column) => `<th>${column}</th>`).join('')}</tr></thead><tbody></tbody></table>`;

const phase = (kind: string, title: string) =>
  `<div><h3>${title}: <span id="${kind}-status"></span> <span id="${kind}-counts"></span></h3><pre id="${kind}-log"></pre></div>`;

export const RUNS_SECTIONS = `
  <section class="wide" id="run" hidden><h2>Run <span id="run-id"></span>: <span id="run-status"></span></h2>
    <div id="run-summary"></div>
    <div class="columns">
      <div><h3>Status timeline</h3>${table('run-timeline', ['status', 'at (emulated clock)'])}</div>
      <div><h3>Run events</h3>${table('run-events', ['action', 'at', 'by'])}</div>
    </div>
    <div class="columns">${phase('plan', 'Plan')}${phase('apply', 'Apply')}</div>
    <h3>Task stages</h3>${table('run-task-stages', ['stage', 'stage status', 'task', 'enforcement', 'result', 'message'])}
    <h3>Policy checks</h3>${table('run-policy-checks', ['check', 'status', 'passed', 'failed (hard / soft / advisory)', 'output'])}
  </section>
  <section class="wide" id="runs-section"><h2>Runs of <span id="runs-scope"></span> (<span id="runs-total"></span>), newest first</h2>
    <form id="runs-filter">
      <input id="runs-workspace" placeholder="organization/workspace or organization" size="32"><button>Show</button>
    </form>
    ${table('runs', ['run', 'workspace', 'status', 'created', 'message'])}
  </section>
`;

export const RUNS_SCRIPT = `
const FINAL_RUN = ['applied', 'planned_and_finished', 'discarded', 'canceled', 'force_canceled', 'errored'];
const linkParams = new URLSearchParams(location.search);
let openRunId = linkParams.get('run');
let shownRun = null;
let runsScope = linkParams.get('workspace') ? { workspace: linkParams.get('workspace') }
  : linkParams.get('organization') ? { organization: linkParams.get('organization') } : {};
$('#runs-workspace').value = runsScope.workspace || runsScope.organization || '';

async function refreshRuns() {
  const scope = runsScope;
  const list = await api('GET', '/ui/runs?' + new URLSearchParams(scope));
  // An answer for a scope the user has since left is dropped, not drawn over the newer one.
  if (scope !== runsScope) return;
  $('#runs-scope').textContent = runsScope.workspace || runsScope.organization || 'every workspace';
  $('#runs-total').textContent = list.total;
  const body = $('#runs tbody');
  body.replaceChildren();
  for (const run of list.rows) {
    const row = body.insertRow();
    row.dataset.id = run.id;
    const link = document.createElement('a');
    link.href = '?run=' + encodeURIComponent(run.id);
    link.textContent = run.id;
    link.addEventListener('click', (event) => { event.preventDefault(); openRun(run.id); });
    row.insertCell().append(link);
    cell(row, run.organization + '/' + run.workspace);
    cell(row, run.status);
    cell(row, run['created-at']);
    cell(row, run.message);
  }
}

function showPhase(kind, phase) {
  $('#' + kind + '-status').textContent = phase ? phase.status : 'none';
  $('#' + kind + '-counts').textContent = phase
    ? '(+' + phase['resource-additions'] + ' ~' + phase['resource-changes'] + ' -' + phase['resource-destructions'] + ')' : '';
  $('#' + kind + '-log').textContent = phase ? readableLog(phase.log) : '';
}

// Structured run output is one JSON object a line: the page shows each line's message.
function readableLog(log) {
  return log.split('\\n').map((line) => {
    if (!line.startsWith('{')) return line;
    try {
      const entry = JSON.parse(line);
      return typeof entry['@message'] === 'string' ? entry['@message'] : line;
    } catch {
      return line;
    }
  }).join('\\n');
}

async function refreshRun() {
  // A finished run no longer changes: it is read once.
  if (!openRunId || (shownRun && shownRun.id === openRunId && FINAL_RUN.includes(shownRun.status))) return;
  const asked = openRunId;
  const run = await api('GET', '/ui/runs/' + encodeURIComponent(asked));
  if (asked !== openRunId) return;
  shownRun = run;
  $('#run').hidden = false;
  $('#run').dataset.status = run.status;
  $('#run-id').textContent = run.id;
  $('#run-status').textContent = run.status;
  const kind = run['plan-only'] ? 'speculative plan' : run['is-destroy'] ? 'destroy' : 'plan and apply';
  $('#run-summary').textContent = [run.organization + '/' + run.workspace, kind, run.source, run.message].join(' · ');
  fill('#run-timeline', run.timeline, [(t) => t.status, (t) => t.at]);
  fill('#run-events', run.events, [(e) => e.action, (e) => e.at, (e) => e.actor]);
  showPhase('plan', run.plan);
  showPhase('apply', run.apply);
  const results = run['task-stages'].flatMap((stage) =>
    stage.results.length ? stage.results.map((result) => ({ stage, result })) : [{ stage, result: null }]);
  fill('#run-task-stages', results, [
    (r) => r.stage.stage, (r) => r.stage.status, (r) => r.result && r.result.task,
    (r) => r.result && r.result['enforcement-level'], (r) => r.result && r.result.status, (r) => r.result && r.result.message,
  ]);
  fill('#run-policy-checks', run['policy-checks'], [
    (c) => c.id, (c) => c.status, (c) => c.passed,
    (c) => c['hard-failed'] + ' / ' + c['soft-failed'] + ' / ' + c['advisory-failed'], (c) => c.output.join('; '),
  ]);
}

function openRun(id) {
  openRunId = id;
  shownRun = null;
  history.replaceState(null, '', '?run=' + encodeURIComponent(id));
  refreshRun().then(() => $('#run').scrollIntoView()).catch(() => undefined);
}

$('#runs-filter').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = $('#runs-workspace').value.trim();
  runsScope = !value ? {} : value.includes('/') ? { workspace: value } : { organization: value };
  refreshRuns().catch(() => undefined);
});
`;
