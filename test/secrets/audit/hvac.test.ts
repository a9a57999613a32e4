import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter as interpreter, missingHvacReason as missingReason, runPython } from '../../helpers/python.js';
import { auditDir, records } from './support.js';

/** Audit devices from a real client: hvac enables, lists, hashes with and disables a file device. */
if (!interpreter && !process.env.CI) console.warn(`skipping the hvac audit test: ${missingReason}`);

const SCRIPT = `
import json, os, hvac

client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
options = {"file_path": os.environ["AUDIT_FILE"]}
client.sys.enable_audit_device(device_type="file", path="hvac-file", description="from hvac", options=options)
listed = client.sys.list_enabled_audit_devices()
client.secrets.kv.v2.create_or_update_secret(path="hvac-audit", secret={"api_key": "k-123"})
hashed = client.sys.calculate_hash(path="hvac-file", input_to_hash="k-123")
client.sys.disable_audit_device(path="hvac-file")
after = client.sys.list_enabled_audit_devices()
print(json.dumps({"listed": listed["data"], "hash": hashed["data"]["hash"], "after": after["data"]}))
`;

describe.skipIf(!interpreter && !process.env.CI)('audit devices from hvac', () => {
  let server: TestServer;
  const file = join(auditDir(), 'hvac.log');
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('enables, lists, hashes and disables a file device; the log holds the hash, not the value', async () => {
    if (!interpreter) throw new Error(`CI is set but ${missingReason}`);
    const run = await runPython(interpreter, SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN, AUDIT_FILE: file });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { listed: Record<string, unknown>; hash: string; after: Record<string, unknown> };
    expect(result.listed['hvac-file/']).toMatchObject({ type: 'file', description: 'from hvac', options: { file_path: file } });
    expect(result.after).toEqual({});
    const write = records(file).find((record) => record.type === 'request' && record.request.path === 'secret/data/hvac-audit');
    expect(write.request.data.data.api_key).toBe(result.hash);
  });
});
