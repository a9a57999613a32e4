import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startProcess } from './process.js';

// At the default level the server's log goes through an asynchronous destination; a line still
// in its buffer when SIGTERM arrives must reach stderr before the process exits.

describe('the log of a real process at the default level', () => {
  it('holds every request answered just before SIGTERM', async () => {
    const running = await startProcess({ env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: ':memory:', UNDERSTUDY_LOG_FORMAT: 'json' } });
    const address = running.banner.exports.VAULT_ADDR as string;
    // Many requests at once, so lines pile up in the buffer; each path is one the log must show.
    const markers = Array.from({ length: 50 }, () => randomUUID());
    const statuses = await Promise.all(
      markers.map(async (marker) => {
        const response = await fetch(`${address}/_emulator/health?marker=${marker}`);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    const exit = await running.stop('SIGTERM');

    expect(exit.code).toBe(0);
    const lines = exit.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string }; reqId?: string; signal?: string });
    for (const marker of markers) {
      const incoming = lines.find((line) => line.msg === 'incoming request' && line.req?.url?.includes(marker));
      expect(incoming, `no incoming-request line for ${marker}`).toBeDefined();
      const completed = lines.find((line) => line.msg === 'request completed' && line.reqId === incoming?.reqId);
      expect(completed, `no completion line for ${marker}`).toBeDefined();
    }
    // The shutdown's own line, written after the last request, made it out too.
    expect(lines.some((line) => line.msg === 'shutting down' && line.signal === 'SIGTERM')).toBe(true);
  });
});
