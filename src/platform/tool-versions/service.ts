import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { StoredToolArch } from '../../store/tables.js';
import { isSiteAdmin, type Principal } from '../auth/principal.js';
import type { Attributes } from '../jsonapi/body.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { KNOWN_RELEASES } from './releases.js';
import * as repo from './repo.js';
import type { ToolVersionRow } from './repo.js';

/** When the shipped releases count as created: they came with understudy, not from an operator. */
const SHIPPED_AT = new Date('2025-01-01T00:00:00.000Z');
const POINTER = '/data/attributes';
const VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** A shipped release's id: stable across stores, so an override of it finds it again. */
export function shippedId(version: string): string {
  return `tool-${createHash('sha256').update(version).digest('hex').slice(0, 16)}`;
}

/** What every shipped release of a tool (terraform, OPA, Sentinel) carries besides its id and version. */
export function shippedRelease(url: string): Omit<ToolVersionRow, 'id' | 'version'> {
  return {
    url,
    // understudy does not carry the release checksums; an operator may set them.
    sha: '',
    official: true,
    enabled: true,
    beta: false,
    deprecated: false,
    deprecatedReason: null,
    archs: [{ url, sha: '', os: 'linux', arch: 'amd64' }],
    removed: false,
    createdAt: SHIPPED_AT,
  };
}

/** An operator's new release of a tool before its attributes are applied (terraform, OPA, Sentinel). */
export function operatorRelease(createdAt: Date): Omit<ToolVersionRow, 'id'> {
  return {
    version: '',
    url: '',
    sha: '',
    official: false,
    enabled: true,
    beta: false,
    deprecated: false,
    deprecatedReason: null,
    archs: [],
    removed: false,
    createdAt,
  };
}

function shippedRow(version: string): ToolVersionRow {
  const url = `https://releases.hashicorp.com/terraform/${version}/terraform_${version}_linux_amd64.zip`;
  return { id: shippedId(version), version, ...shippedRelease(url) };
}

/** Every tool version in force: the shipped releases as overridden, then the ones operators added. */
export function allToolVersions(db: DbOrTx): ToolVersionRow[] {
  const stored = new Map(repo.storedToolVersions(db).map((row) => [row.id, row]));
  const shipped = KNOWN_RELEASES.map((version) => stored.get(shippedId(version)) ?? shippedRow(version));
  const shippedIds = new Set(KNOWN_RELEASES.map(shippedId));
  const added = [...stored.values()].filter((row) => !shippedIds.has(row.id)).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return [...shipped, ...added].filter((row) => !row.removed);
}

/** The versions a workspace may select: enabled ones (a disabled version stays on workspaces that have it). */
export function selectableReleases(db: DbOrTx): string[] {
  return allToolVersions(db)
    .filter((row) => row.enabled)
    .map((row) => row.version);
}

/** The attributes every tool version resource shares (terraform, OPA, Sentinel). */
export type ToolVersionFields = Omit<ToolVersionRow, 'id' | 'removed' | 'createdAt'>;

export interface ToolVersionFilter {
  /** `filter[version]`: exactly this version. */
  version?: string;
  /** `search[version]`: versions containing this text. */
  search?: string;
}

/**
 * The admin API over tool versions (`/api/v2/admin/terraform-versions`): site administrators
 * only, everyone else meets a 404. A version in use by a workspace cannot be deleted.
 */
export class ToolVersionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  requireAdmin(principal: Principal): void {
    if (!isSiteAdmin(principal)) throw NOT_FOUND;
  }

  list(filter: ToolVersionFilter): ToolVersionRow[] {
    return allToolVersions(this.db).filter(
      (row) =>
        (filter.version === undefined || row.version === filter.version) &&
        (filter.search === undefined || row.version.includes(filter.search)),
    );
  }

  usage(rows: readonly ToolVersionRow[]): Map<string, number> {
    return repo.usageOf(
      this.db,
      rows.map((row) => row.version),
    );
  }

  show(id: string): ToolVersionRow {
    const row = allToolVersions(this.db).find((candidate) => candidate.id === id);
    if (!row) throw NOT_FOUND;
    return row;
  }

  create(attributes: Attributes): ToolVersionRow {
    const version = attributes.string('version');
    if (version === undefined || version === null || version === '') throw unprocessable("version can't be blank", `${POINTER}/version`);
    const row = applyToolAttributes({ id: newId('tool'), ...operatorRelease(this.clock.now()) }, attributes);
    this.checkUnique(row);
    repo.saveToolVersion(this.db, row);
    return row;
  }

  update(id: string, attributes: Attributes): ToolVersionRow {
    const row = applyToolAttributes(this.show(id), attributes);
    this.checkUnique(row);
    repo.saveToolVersion(this.db, row);
    return row;
  }

  /** A shipped release is marked removed; an added one goes. Either way only when no workspace uses it. */
  destroy(id: string): void {
    const row = this.show(id);
    if ((this.usage([row]).get(row.version) ?? 0) > 0) {
      throw unprocessable(`version ${row.version} is in use by workspaces and cannot be deleted`);
    }
    const shipped = KNOWN_RELEASES.some((version) => shippedId(version) === row.id);
    if (shipped) repo.saveToolVersion(this.db, { ...row, removed: true });
    else repo.deleteStoredToolVersion(this.db, row.id);
  }

  private checkUnique(row: ToolVersionRow): void {
    const clash = allToolVersions(this.db).find((other) => other.version === row.version && other.id !== row.id);
    if (clash) throw unprocessable('version has already been taken', `${POINTER}/version`);
  }
}

function readArchs(attributes: Attributes): StoredToolArch[] | undefined {
  const raw = attributes.array('archs');
  if (raw === undefined || raw === null) return undefined;
  return raw.map((entry, index) => {
    const pointer = `${POINTER}/archs/${index}`;
    if (typeof entry !== 'object' || entry === null) throw unprocessable('each archs entry must be an object', pointer);
    const record = entry as Record<string, unknown>;
    const fields = ['url', 'sha', 'os', 'arch'].map((name) => record[name]);
    if (!fields.every((value) => typeof value === 'string' && value !== '')) {
      throw unprocessable('each archs entry needs url, sha, os and arch strings', pointer);
    }
    const [url, sha, os, arch] = fields as string[];
    if (!SHA256.test(sha as string)) throw unprocessable('sha must be a SHA-256 checksum in hex', `${pointer}/sha`);
    return { url: url as string, sha: sha as string, os: os as string, arch: arch as string };
  });
}

/**
 * The body's attributes over `row`. A top-level `url` and `sha` stand for the linux/amd64 build
 * (and replace the `archs`); given `archs` set the top-level pair from their linux/amd64 entry.
 */
export function applyToolAttributes<Row extends ToolVersionFields>(row: Row, attributes: Attributes): Row {
  const next = { ...row };
  const version = attributes.string('version');
  if (version !== undefined && version !== null) {
    if (!VERSION.test(version)) throw unprocessable('version must be a semantic version such as 1.14.0', `${POINTER}/version`);
    next.version = version;
  }
  for (const name of ['official', 'enabled', 'beta', 'deprecated'] as const) {
    const value = attributes.boolean(name);
    if (value !== undefined) next[name] = value;
  }
  const reason = attributes.string('deprecated-reason', { nullable: true });
  if (reason !== undefined) next.deprecatedReason = reason;
  if (!next.deprecated) next.deprecatedReason = null;
  const archs = readArchs(attributes);
  const url = attributes.string('url');
  const sha = attributes.string('sha');
  if (archs) {
    next.archs = archs;
    const amd64 = archs.find((entry) => entry.os === 'linux' && entry.arch === 'amd64') ?? archs[0];
    next.url = amd64?.url ?? '';
    next.sha = amd64?.sha ?? '';
  }
  if (typeof url === 'string' || typeof sha === 'string') {
    if (typeof sha === 'string' && !SHA256.test(sha)) throw unprocessable('sha must be a SHA-256 checksum in hex', `${POINTER}/sha`);
    next.url = typeof url === 'string' ? url : next.url;
    next.sha = typeof sha === 'string' ? sha : next.sha;
    if (!archs) next.archs = [{ url: next.url, sha: next.sha, os: 'linux', arch: 'amd64' }];
  }
  if (next.archs.length === 0) {
    throw unprocessable('a version needs url and sha, or archs', `${POINTER}/url`);
  }
  return next;
}
