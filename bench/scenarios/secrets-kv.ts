import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addGoals, cost, DOC_BASELINE } from '../goals.js';
import type { BenchRequest, BenchTarget, Scenario } from '../scenario.js';

/**
 * The key/value engine's everyday calls on `secret/` (version 2): a write (a new version each
 * time, trimming the oldest past ten) and a read of the latest version, next to the cubbyhole rows.
 */

const WRITE = 'POST /v1/secret/data/:path';
const READ = 'GET /v1/secret/data/:path';
const headers = (target: BenchTarget) => ({ 'x-vault-token': target.rootToken, 'content-type': 'application/json' });
const body = JSON.stringify({ data: { username: 'bench', password: 'not-a-real-secret' } });
const AUDITED_READ = `${READ} (audit file device)`;

/** Stores the secret the read rows read back. */
async function readRequest(target: BenchTarget): Promise<BenchRequest> {
  const response = await fetch(`${target.baseUrl}/v1/secret/data/bench/read`, { method: 'POST', headers: headers(target), body });
  if (response.status !== 200) throw new Error(`kv seed write answered ${response.status}`);
  return { path: '/v1/secret/data/bench/read', headers: { 'x-vault-token': target.rootToken } };
}

/**
 * The audit files of the audited row, removed after it: one per setup, and the A/B tools set a row
 * up on two servers (one variable kept only the last, leaving ~150 MB a comparison in the temp dir).
 */
const auditDirs: string[] = [];

export const scenarios: Scenario[] = [
  {
    // On a server of its own, like its yardstick the cubbyhole write: on the full run's shared
    // server, late in the run, a write cost 1.3-1.5 times what it costs on a fresh one, with the
    // same functions in the same proportions and the same instructions per write (callgrind), no
    // growth with the store's rows (the statements are index searches; a reset precedes the row),
    // but some 550 MB resident against 130 after the earlier rows' worlds: the state of a server
    // the bench has used for twenty minutes, not the write's cost.
    name: WRITE,
    fresh: true,
    setup: async (target) => ({ method: 'POST', path: '/v1/secret/data/bench/write', headers: headers(target), body }),
  },
  { name: READ, fresh: true, setup: readRequest },
  {
    // The same read with a `file` device writing both records of every request to a real file.
    name: AUDITED_READ,
    fresh: true,
    setup: async (target) => {
      const auditDir = mkdtempSync(join(tmpdir(), 'understudy-bench-audit-'));
      auditDirs.push(auditDir);
      const options = { file_path: join(auditDir, 'audit.log') };
      const enabled = await fetch(`${target.baseUrl}/v1/sys/audit/file`, {
        method: 'PUT',
        headers: headers(target),
        body: JSON.stringify({ type: 'file', options }),
      });
      if (enabled.status !== 204) throw new Error(`enabling the audit device answered ${enabled.status}`);
      return readRequest(target);
    },
    teardown: async () => {
      for (const auditDir of auditDirs.splice(0)) rmSync(auditDir, { recursive: true, force: true });
    },
  },
];

// A read is a point read (the same goal as the cubbyhole's); a write stores a version and its metadata.
addGoals(
  cost(`${READ} vs document baseline`, READ, DOC_BASELINE, 1.25),
  // Issue 19: an audit device costs at most 15% of the read it records.
  cost(`${AUDITED_READ} vs the same read without a device`, AUDITED_READ, READ, 1.15),
  cost(`${WRITE} vs cubbyhole write`, WRITE, 'POST /v1/cubbyhole/:path', 2),
);
