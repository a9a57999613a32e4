import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Listeners } from '../../src/core/listeners.js';

/** A real pino logger writing its JSON lines into an array. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'error' }, sink), lines };
}

describe('listeners', () => {
  it('tell every listener, whatever an earlier one throws, and log each failure with the event described', async () => {
    const { log, lines } = capturedLog();
    const changes = new Listeners<{ id: string; status: string }>(log, 'a status listener failed', (change) => ({ subject: change.id }));
    const heard: string[] = [];
    let rejected!: () => void;
    const asyncFailureLogged = new Promise<void>((resolve) => (rejected = resolve));
    const stopThrowing = changes.add(() => {
      throw new Error('synchronous failure');
    });
    const stopRejecting = changes.add(async () => {
      await Promise.resolve();
      setImmediate(rejected);
      throw new Error('asynchronous failure');
    });
    const stopHearing = changes.add((change) => void heard.push(`${change.id}:${change.status}`));

    changes.emit({ id: 'q-1', status: 'running' });
    await asyncFailureLogged;
    for (const stop of [stopThrowing, stopRejecting, stopHearing]) stop();
    changes.emit({ id: 'q-1', status: 'finished' });

    expect(heard).toEqual(['q-1:running']);
    expect(lines.map((line) => [line.msg, line.subject, (line.err as { message: string }).message])).toEqual([
      ['a status listener failed', 'q-1', 'synchronous failure'],
      ['a status listener failed', 'q-1', 'asynchronous failure'],
    ]);
  });
});
