import { createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { EC_CURVES, specId, type KeySpec } from './keys.js';

/**
 * The worker's whole program. Inline CommonJS (`eval`), so the same code runs from the compiled
 * server and from TypeScript under the test runner without a loader.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { generateKeyPairSync } = require('node:crypto');
parentPort.on('message', (spec) => {
  const options = spec.type === 'rsa' ? { modulusLength: spec.bits, publicExponent: 0x10001 } : { namedCurve: spec.curve };
  const encodings = { privateKeyEncoding: { type: 'pkcs8', format: 'der' }, publicKeyEncoding: { type: 'spki', format: 'der' } };
  const { privateKey } = generateKeyPairSync(spec.type, { ...options, ...encodings });
  const copy = new Uint8Array(privateKey);
  parentPort.postMessage(copy, [copy.buffer]);
});
`;

/**
 * The sizes kept ready: the common RSA choices. Anything else (RSA 4096 and 8192) is generated
 * when asked for and never pre-generated, so one role naming RSA-8192 cannot make the pool spend
 * minutes of CPU on keys nobody may take. EC keys are never pooled: making one (about 0.15 ms)
 * costs less than reading a pooled one back from DER (about 0.9 ms with OpenSSL 3), so each is
 * generated when taken, on libuv's threads.
 */
export const POOLED_SPECS: readonly string[] = ['rsa-2048', 'rsa-3072'];

const generateEc = promisify(generateKeyPair);

interface Job {
  spec: KeySpec;
  resolve(der: Uint8Array): void;
  reject(error: Error): void;
}

/**
 * Pre-generated keys per type and size, refilled by worker threads. Key generation (about
 * 220 ms for RSA-2048) is the cost of issuing, so a burst is served from the pool while the
 * workers refill it on every core; a request that finds the pool empty jumps the refill queue.
 * Uncommon sizes skip the pool: each is generated (off the event loop) when a request needs it.
 * Nothing runs until a key type is first used, so the pool never slows the server's start.
 */
export class KeyPool {
  private readonly ready = new Map<string, Uint8Array[]>();
  private readonly refilling = new Map<string, number>();
  private readonly urgent: Job[] = [];
  private readonly background: Job[] = [];
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly watchers: { id: string; count: number; resolve(): void; reject(error: Error): void }[] = [];
  private workers = 0;
  private closed = false;
  private readonly taken = { pooled: 0, onDemand: 0 };

  constructor(
    /** Keys kept ready per type and size; 0 generates every key on demand (still off the event loop). */
    readonly size: number,
    private readonly threads = Math.max(1, availableParallelism()),
  ) {}

  /** Starts filling the pool for `spec` (a role naming a key type is a good moment); only common sizes are pooled. */
  warm(spec: KeySpec): void {
    const id = specId(spec);
    if (this.closed || this.size === 0 || !POOLED_SPECS.includes(id)) return;
    const missing = this.size - (this.ready.get(id)?.length ?? 0) - (this.refilling.get(id) ?? 0);
    for (let index = 0; index < missing; index += 1) {
      this.refilling.set(id, (this.refilling.get(id) ?? 0) + 1);
      this.background.push({
        spec,
        resolve: (der) => {
          this.refilling.set(id, (this.refilling.get(id) ?? 1) - 1);
          const list = this.ready.get(id) ?? [];
          list.push(der);
          this.ready.set(id, list);
          this.tell(id);
        },
        reject: () => this.refilling.set(id, (this.refilling.get(id) ?? 1) - 1),
      });
    }
    this.dispatch();
  }

  /** A fresh private key: from the pool when one is ready, else generated now ahead of refills. */
  async take(spec: KeySpec): Promise<KeyObject> {
    if (spec.type === 'ec') {
      if (this.closed) throw new Error('the key pool is closed');
      return (await generateEc('ec', { namedCurve: EC_CURVES[spec.bits] as string })).privateKey;
    }
    const pooled = this.ready.get(specId(spec))?.shift();
    if (pooled) this.taken.pooled += 1;
    else this.taken.onDemand += 1;
    this.warm(spec);
    const der =
      pooled ??
      (await new Promise<Uint8Array>((resolve, reject) => {
        this.urgent.push({ spec, resolve, reject });
        this.dispatch();
      }));
    return createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  }

  /** Keys ready now for `spec` (tests and the bench look). */
  available(spec: KeySpec): number {
    return this.ready.get(specId(spec))?.length ?? 0;
  }

  /**
   * Resolves once `count` keys are ready for `spec`, at once if they are; rejects if the pool
   * closes first (tests wait on it instead of polling `available`).
   */
  whenAvailable(spec: KeySpec, count: number): Promise<void> {
    const id = specId(spec);
    if (this.available(spec) >= count) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('the key pool is closed'));
    return new Promise((resolve, reject) => this.watchers.push({ id, count, resolve, reject }));
  }

  /**
   * RSA keys handed out so far: `pooled` came ready from the pool, `onDemand` waited for a worker
   * to generate them (tests check a burst is served from the pool; EC keys are counted in neither).
   */
  get takenKeys(): { pooled: number; onDemand: number } {
    return { ...this.taken };
  }

  /** Worker threads alive now (none before first use, none after close). */
  get threadCount(): number {
    return this.workers;
  }

  /** Stops the workers; pending requests fail. Called when the app closes. */
  async close(): Promise<void> {
    this.closed = true;
    const error = new Error('the key pool is closed');
    for (const job of [...this.urgent.splice(0), ...this.background.splice(0), ...this.busy.values()]) job.reject(error);
    for (const watcher of this.watchers.splice(0)) watcher.reject(error);
    const idle = this.idle.splice(0);
    const busy = [...this.busy.keys()];
    this.busy.clear();
    // A busy worker may be inside a native key generation, which terminate() cannot interrupt (an
    // RSA-4096 key takes seconds on a loaded machine): it is told to stop but not waited for. It is
    // unref'd, so it keeps no process alive, and its key is dropped.
    for (const worker of busy) void worker.terminate();
    await Promise.all(idle.map((worker) => worker.terminate()));
    this.workers = 0;
  }

  /** Wakes whoever waits for enough keys of `id`. */
  private tell(id: string): void {
    const ready = this.ready.get(id)?.length ?? 0;
    for (const watcher of [...this.watchers]) {
      if (watcher.id !== id || ready < watcher.count) continue;
      this.watchers.splice(this.watchers.indexOf(watcher), 1);
      watcher.resolve();
    }
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    // Idle workers must never keep a finished process (or a test run) alive.
    worker.unref();
    worker.on('message', (der: Uint8Array) => {
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      this.idle.push(worker);
      job?.resolve(der);
      this.dispatch();
    });
    worker.on('error', (error) => {
      this.busy.get(worker)?.reject(error);
      this.busy.delete(worker);
      this.workers -= 1;
      this.dispatch();
    });
    this.workers += 1;
    return worker;
  }

  private dispatch(): void {
    while (!this.closed && (this.urgent.length > 0 || this.background.length > 0)) {
      const worker = this.idle.pop() ?? (this.workers < this.threads ? this.spawn() : undefined);
      if (!worker) return;
      const job = (this.urgent.shift() ?? this.background.shift()) as Job;
      this.busy.set(worker, job);
      worker.postMessage({ type: job.spec.type, bits: job.spec.bits, curve: EC_CURVES[job.spec.bits] });
    }
  }
}
