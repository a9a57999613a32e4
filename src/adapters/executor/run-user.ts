import { execFileSync } from 'node:child_process';
import { lchown, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Who a run's terraform process is. A configuration's `local-exec` provisioner (or an external
 * data source, or a provider) runs whatever it names with that process's rights, so a server
 * running as root must not hand them on: runs execute as an unprivileged user in a directory of
 * their own, and the store's files are private to the server's user (store.ts).
 */
export interface RunUser {
  name: string;
  uid: number;
  gid: number;
}

/** The run identity cannot be used; the message names the variable to set. */
export class RunUserError extends Error {}

export interface RunUserSettings {
  /** `UNDERSTUDY_RUN_USER`: a user name or `uid[:gid]`; null: `nobody` when the server is root. */
  runUser: string | null;
  /** `UNDERSTUDY_RUN_AS_ROOT=true`: the operator accepts runs with the server's root rights. */
  runAsRoot: 'true' | 'false';
}

/** The user a run executes as when the server is root and nothing else is configured. */
export const DEFAULT_RUN_USER = 'nobody';

function idOf(name: string, flag: '-u' | '-g'): number | null {
  try {
    const text = execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5_000 }).trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}

function lookUp(spec: string): RunUser | null {
  const numeric = /^(\d+)(?::(\d+))?$/.exec(spec);
  if (numeric) {
    const uid = Number(numeric[1]);
    return { name: spec, uid, gid: numeric[2] === undefined ? uid : Number(numeric[2]) };
  }
  const uid = idOf(spec, '-u');
  const gid = idOf(spec, '-g');
  return uid === null || gid === null ? null : { name: spec, uid, gid };
}

/**
 * The user runs execute as, or null for the server's own user: when the server is not root (it
 * cannot switch users, and has no rights to hand on), or when root is explicitly accepted.
 */
export function resolveRunUser(settings: RunUserSettings, serverUid: number = process.getuid?.() ?? -1): RunUser | null {
  const asRoot = settings.runAsRoot === 'true';
  if (serverUid !== 0) {
    if (settings.runUser === null) return null;
    const wanted = lookUp(settings.runUser);
    if (wanted !== null && wanted.uid === serverUid) return null;
    throw new RunUserError(
      `UNDERSTUDY_RUN_USER=${settings.runUser} needs the server to run as root ` +
        `(it runs as uid ${serverUid}, and runs use that user); unset it`,
    );
  }
  if (settings.runUser === null && asRoot) return null;
  const spec = settings.runUser ?? DEFAULT_RUN_USER;
  const user = lookUp(spec);
  if (user === null)
    throw new RunUserError(
      `runs must not execute as root, and the run user ${JSON.stringify(spec)} does not exist: set UNDERSTUDY_RUN_USER ` +
        'to an unprivileged user (a name or uid:gid), or UNDERSTUDY_RUN_AS_ROOT=true to accept runs with root rights',
    );
  if (user.uid === 0 && !asRoot)
    throw new RunUserError(`UNDERSTUDY_RUN_USER=${spec} is root: runs would act as root; set UNDERSTUDY_RUN_AS_ROOT=true to accept that`);
  return user;
}

/** A new, private working directory for one run (0700); the run user's once handed over. */
export function makeRunDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'understudy-run-'));
}

/**
 * Gives `path` and everything under it to the run user (links themselves, never what they point
 * at), so terraform can write its lock file, `.terraform/` and state. A no-op without a run user.
 */
export async function handOver(path: string, user: RunUser | null): Promise<void> {
  if (user === null) return;
  await lchown(path, user.uid, user.gid);
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await handOver(child, user);
    else await lchown(child, user.uid, user.gid);
  }
}
