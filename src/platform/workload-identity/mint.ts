/**
 * Signs workload identity tokens: RS256 with the current signing key of the admin settings, its
 * `kid` as `/.well-known/jwks` publishes it, `iss` the configured issuer (the one string the
 * discovery document carries too), times on the virtual clock.
 */
import { sign } from 'node:crypto';
import { promisify } from 'node:util';
import { parseDurationMs } from '../../core/duration.js';
import type { Runtime } from '../../runtime.js';
import { readSettings } from '../admin-settings/service.js';
import type { SigningKeys } from './signing-keys.js';
import type { RunNames, RunPhase } from '../runs/phase-hooks.js';
import { workloadClaims, type WorkloadClaims } from './claims.js';

/** The platform's defaults for `plan-timeout` and `apply-timeout`, used when a stored value does not parse. */
const DEFAULT_TIMEOUT_MS: Record<RunPhase, number> = { plan: 2 * 3_600_000, apply: 24 * 3_600_000 };

export interface MintRequest {
  names: RunNames;
  phase: RunPhase;
  runId: string;
  audience: string;
  /** Overrides the phase timeout the token otherwise lives for. */
  lifetimeMs?: number;
}

export interface MintedToken {
  token: string;
  kid: string;
  claims: WorkloadClaims;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * RS256 with a 2048-bit key takes about a millisecond of CPU: signed on libuv's thread pool (the
 * callback form of `sign`), so a phase's start does not hold up every other request meanwhile.
 */
const signOffThread = promisify(sign);

/** The token lives until the phase's timeout (`plan-timeout` / `apply-timeout` of the general settings). */
export function phaseTimeoutMs(runtime: Runtime, phase: RunPhase): number {
  const value = readSettings(runtime.store.db, 'general')[`${phase}-timeout`];
  try {
    const ms = parseDurationMs(value);
    return ms > 0 ? ms : DEFAULT_TIMEOUT_MS[phase];
  } catch {
    return DEFAULT_TIMEOUT_MS[phase];
  }
}

export async function mintWorkloadToken(runtime: Runtime, signingKeys: SigningKeys, request: MintRequest): Promise<MintedToken> {
  const keys = await signingKeys.published();
  const key = keys.find((candidate) => candidate.current) ?? keys[keys.length - 1];
  if (!key) throw new Error('no signing key is published');
  const claims = workloadClaims({
    issuer: runtime.publicUrl(),
    audience: request.audience,
    names: request.names,
    phase: request.phase,
    runId: request.runId,
    issuedAt: runtime.clock.now(),
    lifetimeMs: request.lifetimeMs ?? phaseTimeoutMs(runtime, request.phase),
  });
  const signingInput = `${base64url({ typ: 'JWT', alg: 'RS256', kid: key.kid })}.${base64url(claims)}`;
  const signature = (await signOffThread('sha256', Buffer.from(signingInput), signingKeys.privateKeyOf(key))).toString('base64url');
  return { token: `${signingInput}.${signature}`, kid: key.kid, claims };
}
