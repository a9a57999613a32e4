import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CurlOptions {
  /** `<dir>/<cert>.pem` and `<dir>/<cert>-key.pem` as the client certificate and key. */
  cert?: string;
  token?: string;
  body?: unknown;
}

/**
 * A caller of `<https>/v1/…` through curl, trusting only `<dir>/tls/ca.pem` (the server's
 * `UNDERSTUDY_TLS=auto` CA) and presenting a client certificate from `dir` when asked: curl, not
 * Node, so the TLS handshake is a real client's. Answers the JSON body and the status.
 */
export function certCurl(dir: string, https: () => string) {
  return async (method: string, path: string, options: CurlOptions = {}) => {
    const args = ['-sS', '-o', '-', '-w', '\n%{http_code}', '--cacert', join(dir, 'tls', 'ca.pem'), '-X', method];
    if (options.cert) args.push('--cert', join(dir, `${options.cert}.pem`), '--key', join(dir, `${options.cert}-key.pem`));
    if (options.token) args.push('-H', `X-Vault-Token: ${options.token}`);
    if (options.body !== undefined) args.push('-H', 'content-type: application/json', '--data', JSON.stringify(options.body));
    const { stdout } = await run('curl', [...args, `${https()}/v1/${path}`]);
    const at = stdout.lastIndexOf('\n');
    const text = stdout.slice(0, at);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
    const body: any = text === '' ? undefined : JSON.parse(text);
    return { status: Number(stdout.slice(at + 1)), body };
  };
}
