import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '../../core/crypto.js';
import type { Db } from '../../store/store.js';
import { RUN_OBJECT_PREFIX } from '../configuration-versions/links.js';
import { findPhase } from './repo.js';

/** The markers the platform's log stream starts and ends with; the Go client's log reader waits for the second. */
const STX = '\u0002';
const ETX = '\u0003';

/** A stored log by id: its text, and whether it is complete (ETX follows). */
export type StoredLogSource = (id: string) => { log: string; complete: boolean } | undefined;

/**
 * Plan and apply logs (and query runs' logs, through `addSource`). While a phase works its log grows here in memory, so `log-read-url`
 * serves each line as soon as it is written; when the phase ends the whole log is stored with
 * it. Links carry an HMAC of the phase id with a key that lives only in this process.
 */
export class LogBook {
  private readonly live = new Map<string, string>();
  private readonly key = randomBytes(32);
  private readonly sources: StoredLogSource[] = [];

  constructor(private readonly db: Db) {}

  start(phaseId: string): void {
    this.live.set(phaseId, '');
  }

  append(phaseId: string, text: string): void {
    const current = this.live.get(phaseId);
    if (current !== undefined) this.live.set(phaseId, current + text);
  }

  /** The log so far; the caller stores it with the phase's final status, then calls `forget`. */
  text(phaseId: string): string {
    return this.live.get(phaseId) ?? '';
  }

  forget(phaseId: string): void {
    this.live.delete(phaseId);
  }

  /** The stream a reader sees: STX, the log, and ETX once the phase has ended. */
  stream(phaseId: string): string | null {
    const live = this.live.get(phaseId);
    if (live !== undefined) return STX + live;
    const phase = findPhase(this.db, phaseId);
    if (!phase) {
      const stored = this.sources.map((source) => source(phaseId)).find((found) => found !== undefined);
      return stored ? STX + stored.log + (stored.complete ? ETX : '') : null;
    }
    // A phase still waiting its turn has a log to come; any other has said all it will.
    return STX + phase.log + (phase.status === 'pending' || phase.status === 'queued' ? '' : ETX);
  }

  /** Another kind of log kept by id (query runs): the stored text once it is no longer live. */
  addSource(source: StoredLogSource): void {
    this.sources.push(source);
  }

  clear(): void {
    this.live.clear();
  }

  private sign(phaseId: string): string {
    return createHmac('sha256', this.key).update(`log:${phaseId}`).digest('base64url');
  }

  path(phaseId: string): string {
    return `${RUN_OBJECT_PREFIX}/logs/${phaseId}.${this.sign(phaseId)}`;
  }

  verify(token: string): string | null {
    const [phaseId, signature, extra] = token.split('.');
    if (!phaseId || !signature || extra !== undefined) return null;
    return safeEqual(signature, this.sign(phaseId)) ? phaseId : null;
  }
}
