import { randomUUID } from 'node:crypto';
import { isoTimestamp } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { LogicalResponse, RawBody, WrapInfo } from '../framework/types.js';
import { JSON_TYPE, logicalEnvelope } from '../http/respond.js';
import { StoreDerived } from '../../store/generation.js';
import { MountStorage } from '../storage/mount-storage.js';
import { isWrappingEntry } from '../tokens/token-service.js';
import type { TokenEntry } from '../tokens/token-store.js';

/** What the wrapping token's cubbyhole keeps besides the answer, for `sys/wrapping/lookup`. */
export interface WrapRecord {
  creation_ttl: number;
  creation_time: string;
  creation_path: string;
}

/** Cubbyhole keys of a wrapping token (under its accessor), as the real service names them. */
const RESPONSE_KEY = 'response';
const INFO_KEY = 'wrapinfo';

/**
 * The answer as the real service keeps it in the cubbyhole: the JSON envelope as a string. A bare
 * body, or an envelope sent with another status, is kept the way the real service keeps those:
 * as `data` carrying the status, content type and body (base64).
 */
export function serialiseAnswer(response: LogicalResponse): string {
  const requestId = randomUUID();
  const asRaw = (raw: RawBody) =>
    JSON.stringify(
      logicalEnvelope(
        {
          data: {
            http_content_type: raw.contentType,
            http_status_code: raw.status,
            http_raw_body: Buffer.from(raw.body).toString('base64'),
          },
        },
        requestId,
      ),
    );
  if (response.raw) return asRaw(response.raw);
  const envelope = JSON.stringify(logicalEnvelope(response, requestId));
  if (response.status !== undefined && response.status !== 200)
    return asRaw({ status: response.status, contentType: JSON_TYPE, body: envelope });
  return envelope;
}

/** A kept answer as it goes out again on unwrap: the envelope as stored, or the bare body it stands for. */
export function answerOf(stored: string): LogicalResponse {
  // Only a bare body is kept with `http_raw_body`, and JSON.stringify wrote the key as it is: any
  // other answer goes out as stored without being parsed first.
  if (!stored.includes('"http_raw_body"')) return { raw: { status: 200, contentType: JSON_TYPE, body: `${stored}\n` } };
  let parsed: { data?: Record<string, unknown> | null } | undefined;
  try {
    parsed = JSON.parse(stored) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const data = parsed?.data;
  if (data && typeof data['http_raw_body'] === 'string' && typeof data['http_status_code'] === 'number') {
    return {
      raw: {
        status: data['http_status_code'],
        contentType: typeof data['http_content_type'] === 'string' ? data['http_content_type'] : JSON_TYPE,
        body: Buffer.from(data['http_raw_body'], 'base64'),
      },
    };
  }
  return { raw: { status: 200, contentType: JSON_TYPE, body: `${stored}\n` } };
}

/** Answers kept opened for their unwrap; past this many the oldest goes first. */
const RECENT_LIMIT = 256;

/**
 * Response wrapping: an answer becomes a single-use token whose cubbyhole holds it. The token,
 * the answer and its lookup record are written in one transaction, so a failure leaves nothing.
 */
export class ResponseWrapper {
  /**
   * The token, the answer and its record in SQLite's own transaction on the one connection, with
   * the statements the store handle has prepared already (a drizzle transaction handle would build
   * and prepare each of them again); the transaction function itself is made once.
   */
  private readonly keep: (token: TokenEntry, writes: (() => void)[]) => void;
  /**
   * The cubbyhole mount's storage, found once per store generation: the mount is permanent (never
   * disabled or moved), so only a reset or a restore can bring another.
   */
  private readonly cubbyholeStorage: StoreDerived<MountStorage | undefined>;
  /**
   * Answers wrapped lately, by the sealed text of their cubbyhole entry, so the unwrap that
   * usually follows reads the entry without decrypting it (a third of a wrap and unwrap's AES
   * work). A sealed text is never written twice (each seal takes a fresh IV), so only the entry
   * the wrap wrote can meet its answer here; each is given out once, then forgotten.
   */
  private readonly recent: StoreDerived<Map<string, string>>;

  constructor(private readonly context: Pick<SecretsContext, 'store' | 'clock' | 'tokens' | 'scheduler' | 'mounts'>) {
    this.keep = context.store.sqlite.transaction((token: TokenEntry, writes: (() => void)[]) => {
      context.tokens.store.insert(token);
      for (const write of writes) write();
    });
    this.cubbyholeStorage = new StoreDerived(context.store.sqlite, () => {
      const uuid = context.mounts.uuidAt('cubbyhole/');
      return uuid === undefined ? undefined : new MountStorage(context.store.db, uuid);
    });
    this.recent = new StoreDerived(context.store.sqlite, () => new Map<string, string>());
  }

  /** The cubbyhole storage every token's private entries live in. */
  private cubbyhole(): MountStorage {
    const storage = this.cubbyholeStorage.get();
    if (storage === undefined) {
      this.cubbyholeStorage.drop();
      throw new ApiError(400, 'response wrapping needs the cubbyhole mount, which is missing');
    }
    return storage;
  }

  /** Wraps `response` (or the answer a rewrap hands over) for `ttl` seconds; the result is what the caller gets. */
  wrap(response: LogicalResponse, ttl: number, requestPath: string): LogicalResponse {
    const { clock, tokens, scheduler } = this.context;
    const creationPath = response.rewrap?.creationPath ?? requestPath;
    const stored = response.rewrap?.storedResponse ?? serialiseAnswer(response);
    const now = clock.now();
    const token = tokens.wrappingEntry(ttl, requestPath, now);
    const record: WrapRecord = { creation_ttl: ttl, creation_time: isoTimestamp(now), creation_path: creationPath };
    const cubbyhole = this.cubbyhole();
    // Sealed before the transaction begins (MountStorage.sealedPut says why).
    const sealed = cubbyhole.seal({ [RESPONSE_KEY]: stored });
    const writes = [cubbyhole.putSealed(`${token.accessor}/${RESPONSE_KEY}`, sealed)];
    // The token's own row says the rest of its record (`derivedRecord`) unless a rewrap kept the first creation path.
    if (creationPath !== requestPath) writes.push(cubbyhole.sealedPut(`${token.accessor}/${INFO_KEY}`, record));
    this.keep(token, writes);
    tokens.store.rememberInserted(token);
    if (typeof sealed === 'string') this.remember(sealed, stored);
    scheduler.poke(token.expiresAt?.getTime());
    const wrapInfo: WrapInfo = {
      token: token.secret ?? '',
      accessor: token.accessor,
      ttl,
      creation_time: record.creation_time,
      creation_path: creationPath,
    };
    if (response.auth) wrapInfo.wrapped_accessor = response.auth.accessor;
    return { wrapInfo, ...(response.warnings?.length ? { warnings: response.warnings } : {}) };
  }

  private remember(sealed: string, stored: string): void {
    const recent = this.recent.get();
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
    recent.set(sealed, stored);
  }

  /** The kept answer of a wrapping token (undefined when its cubbyhole has none). */
  storedAnswer(token: TokenEntry): string | undefined {
    const cubbyhole = this.cubbyhole();
    const sealed = cubbyhole.stored(`${token.accessor}/${RESPONSE_KEY}`);
    if (typeof sealed === 'string') {
      const recent = this.recent.get();
      const answer = recent.get(sealed);
      if (answer !== undefined) {
        recent.delete(sealed);
        return answer;
      }
    }
    const value = cubbyhole.openStored<Record<string, unknown>>(sealed)?.[RESPONSE_KEY];
    return typeof value === 'string' ? value : undefined;
  }

  /**
   * What `sys/wrapping/lookup` answers: the record a rewrap kept (or an older version wrote for
   * every wrap), else what the wrapping token's row says, which is the same: its TTL, its creation
   * time and the path it was made on. Only for a token a wrap made whose answer is still there;
   * any other has no record, as before.
   */
  record(token: TokenEntry): WrapRecord | undefined {
    const cubbyhole = this.cubbyhole();
    const kept = cubbyhole.get<WrapRecord>(`${token.accessor}/${INFO_KEY}`);
    if (kept !== undefined) return kept;
    if (!isWrappingEntry(token) || !cubbyhole.has(`${token.accessor}/${RESPONSE_KEY}`)) return undefined;
    return { creation_ttl: token.ttlSeconds, creation_time: token.createdAt.toISOString(), creation_path: token.path };
  }
}
