import { randomInt, randomUUID } from 'node:crypto';
import { badRequest } from '../../core/errors.js';
import { textOf } from '../../core/json.js';
import type { SecretsContext } from '../context.js';
import type { LogicalResponse, PathSpec } from '../framework/types.js';
import { MountStorage } from '../storage/mount-storage.js';

/**
 * The seal-side `sys/` paths real clients call on a running server: `init` (always initialised),
 * the keyring (`key-status`, `rotate`), the rekey backup (there never is one) and the root-token
 * generation attempt. understudy has no seal and no unseal keys, so these keep only what a client
 * can observe: the keyring term and its install time, and whether an attempt was started.
 */

/** The system's own storage, shared with password policies and audit devices. */
const SYSTEM_STORAGE = 'builtin-system';
const KEYRING = 'keyring';
const ATTEMPT = 'generate-root/attempt';
/** A root token's length with its `hvs.` prefix: the one-time password's length. */
const OTP_LENGTH = 28;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

interface Keyring {
  term: number;
  /** Unix milliseconds on the server's clock. */
  installedAt: number;
}

interface Attempt {
  nonce: string;
}

const rfc3339Nano = (ms: number) =>
  new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_all, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));

/** A bare JSON body, as the real server writes its seal-side handlers (no envelope). */
const bare = (body: unknown): LogicalResponse => ({
  raw: { status: 200, contentType: 'application/json', body: `${JSON.stringify(body)}\n` },
});

const randomOtp = () => Array.from({ length: OTP_LENGTH }, () => BASE62[randomInt(BASE62.length)]).join('');

export function keyringPaths(context: SecretsContext): PathSpec[] {
  const storage = () => new MountStorage(context.store.db, SYSTEM_STORAGE);
  /** The keyring, made with term 1 the first time anyone asks. */
  const keyring = (): Keyring => {
    const found = storage().get<Keyring>(KEYRING);
    if (found) return found;
    const made = { term: 1, installedAt: context.clock.nowMs() };
    storage().put(KEYRING, made);
    return made;
  };
  const attemptStatus = (otp: string) => {
    const attempt = storage().get<Attempt>(ATTEMPT);
    return bare({
      started: attempt !== undefined,
      nonce: attempt?.nonce ?? '',
      progress: 0,
      required: 1,
      complete: false,
      encoded_token: '',
      encoded_root_token: '',
      pgp_fingerprint: '',
      otp,
      otp_length: OTP_LENGTH,
    });
  };

  return [
    {
      pattern: 'key-status',
      summary: 'The keyring: its term, when the term was installed, and encryptions (not counted here: 0).',
      operations: {
        read: () => {
          const { term, installedAt } = keyring();
          return { data: { term, install_time: rfc3339Nano(installedAt), encryptions: 0 }, dataAtTopLevel: true };
        },
      },
    },
    {
      pattern: 'rotate',
      summary: 'Moves the keyring to its next term.',
      sudo: true,
      operations: {
        update: () => {
          const { term } = keyring();
          storage().put(KEYRING, { term: term + 1, installedAt: context.clock.nowMs() });
          return undefined;
        },
      },
    },
    {
      pattern: 'rekey/backup',
      summary: 'Backed-up unseal keys from a rekey: there never are any here.',
      sudo: true,
      operations: {
        read: () => {
          throw badRequest('no backed-up keys found');
        },
        delete: () => undefined,
      },
    },
    {
      pattern: 'generate-root/attempt',
      summary: 'Root token generation: start (a one-time password is made when none is given), read, cancel.',
      unauthenticated: ['read', 'update', 'delete'],
      neverWrapped: true,
      fields: {
        otp: { type: 'string', default: '', description: 'A one-time password of 28 characters.' },
        pgp_key: { type: 'string', default: '', description: 'Not supported here.' },
      },
      operations: {
        read: () => attemptStatus(''),
        update: (request) => {
          const otp = textOf(request.data['otp'] ?? '');
          const pgpKey = textOf(request.data['pgp_key'] ?? '');
          if (otp !== '' && pgpKey !== '') throw badRequest('only one of "otp" and "pgp_key" must be specified');
          if (pgpKey !== '') throw badRequest('pgp_key is not supported by understudy; send an otp or neither');
          if (otp !== '' && otp.length !== OTP_LENGTH) throw badRequest('OTP string is wrong length');
          if (storage().get<Attempt>(ATTEMPT)) throw badRequest('root generation already in progress');
          storage().put(ATTEMPT, { nonce: randomUUID() } satisfies Attempt);
          return attemptStatus(otp === '' ? randomOtp() : '');
        },
        delete: () => {
          storage().delete(ATTEMPT);
          return undefined;
        },
      },
    },
  ];
}
