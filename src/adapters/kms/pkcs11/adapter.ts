import { createPublicKey } from 'node:crypto';
import { SHARE_ENV, Worker } from 'node:worker_threads';
import { rawEcdsaToDer } from '../der.js';
import { KmsError, type KeyPolicy, type KmsAdapter, type KmsSigner, type SigningAlgorithm } from '../types.js';
import { CKM, type Pkcs11KeyRef, type WorkerReply, type WorkerRequest } from './protocol.js';

/** Most workers one library gets, whatever a key's `max_parallel` asks. */
const MAX_WORKERS = 8;

/** Starts the worker: `dist/pkcs11-worker.js` beside the bundle, or the TypeScript source through tsx in development and tests. */
function startWorker(): Worker {
  const url = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './pkcs11-worker.js', import.meta.url);
  if (url.pathname.endsWith('.js')) return new Worker(url, { env: SHARE_ENV });
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(bootstrap, { eval: true, env: SHARE_ENV });
}

/** A request before the adapter numbers it (Omit over each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

type Pending = { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void };

/** One worker thread and the requests in flight on it. */
class WorkerHandle {
  readonly worker = startWorker();
  readonly pending = new Map<number, Pending>();

  constructor() {
    this.worker.on('message', (reply: WorkerReply) => {
      this.pending.get(reply.id)?.resolve(reply);
      this.pending.delete(reply.id);
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', () => this.failAll(new Error('the PKCS#11 worker stopped')));
    this.worker.unref();
  }

  private failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

/** Limits how many calls run at once (a key's `max_parallel`). */
class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await work();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

/** What the managed key configuration gives the adapter. */
export interface Pkcs11Config extends Pkcs11KeyRef {
  maxParallel: number;
}

function algorithmOf(mechanism: number): SigningAlgorithm {
  if (mechanism === CKM.ECDSA) return { key: 'ec', hash: 'sha256' };
  const pss = mechanism === CKM.RSA_PKCS_PSS || mechanism === CKM.SHA256_RSA_PKCS_PSS;
  return { key: 'rsa', padding: pss ? 'pss' : 'pkcs1', hash: 'sha256' };
}

/**
 * PKCS#11 through pkcs11js, in worker threads: the calls block, so the event loop never makes
 * them. Workers are shared by all keys; a key's calls go to the least busy worker and at most
 * `max_parallel` of them are in flight.
 */
export class Pkcs11Adapter implements KmsAdapter<Pkcs11Config> {
  private readonly workers: WorkerHandle[] = [];
  private readonly gates = new Map<string, Gate>();
  /** Per token, the PIN that last logged in successfully (see `pinVerified`). */
  private readonly verifiedPins = new Map<string, string>();
  private nextId = 1;

  private call(request: WithoutId<WorkerRequest>, wanted: number): Promise<WorkerReply> {
    while (this.workers.length < Math.min(wanted, MAX_WORKERS)) this.workers.push(new WorkerHandle());
    const handle = this.workers.reduce((best, candidate) => (candidate.pending.size < best.pending.size ? candidate : best));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      handle.pending.set(id, { resolve, reject });
      handle.worker.postMessage({ ...request, id });
    });
  }

  private gate(config: Pkcs11Config): Gate {
    const key = JSON.stringify([config.libraryPath, config.slot, config.tokenLabel, config.keyLabel, config.keyIdHex, config.maxParallel]);
    let gate = this.gates.get(key);
    if (!gate) {
      gate = new Gate(config.maxParallel);
      this.gates.set(key, gate);
    }
    return gate;
  }

  async open(config: Pkcs11Config, policy: KeyPolicy): Promise<KmsSigner> {
    const { maxParallel, ...ref } = config;
    const token = JSON.stringify([config.libraryPath, config.slot, config.tokenLabel]);
    const key = () => ({ ...ref, pinVerified: this.verifiedPins.get(token) === ref.pin });
    const gate = this.gate(config);
    const opened = await gate.run(() => this.call({ op: 'open', key: key(), allowGenerate: policy.allowGenerate }, maxParallel));
    if (!opened.ok) throw new KmsError(opened.error);
    this.verifiedPins.set(token, ref.pin);
    if (!opened.publicJwk) throw new KmsError('the worker returned no public key');
    const publicKey = createPublicKey({ key: { ...opened.publicJwk }, format: 'jwk' });
    const algorithm = algorithmOf(config.mechanism);
    return {
      publicKey,
      algorithm,
      sign: async (data) => {
        const signed = await gate.run(() => this.call({ op: 'sign', key: key(), data }, maxParallel));
        if (!signed.ok) throw new KmsError(signed.error);
        const signature = Buffer.from(signed.signature ?? []);
        return algorithm.key === 'ec' ? rawEcdsaToDer(signature) : signature;
      },
    };
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((handle) => handle.worker.terminate()));
  }
}
