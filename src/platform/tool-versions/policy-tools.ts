import { createHash } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { policySets, policyToolVersions } from '../../store/tables.js';
import type { Attributes } from '../jsonapi/body.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { applyToolAttributes, operatorRelease, shippedRelease, type ToolVersionFilter } from './service.js';

export type PolicyTool = 'opa' | 'sentinel';
export type PolicyToolVersionRow = typeof policyToolVersions.$inferSelect;

/**
 * The policy engine releases understudy ships with (a short list, newest last); an operator adds
 * others through the admin API. The Go client's tests look for OPA 0.59.0 and Sentinel 0.22.1.
 */
const SHIPPED: Record<PolicyTool, readonly string[]> = {
  opa: [
    '0.44.0',
    '0.45.0',
    '0.46.1',
    '0.47.4',
    '0.48.0',
    '0.49.2',
    '0.50.2',
    '0.51.0',
    '0.52.0',
    '0.53.1',
    '0.54.0',
    '0.55.0',
    '0.56.0',
    '0.57.1',
    '0.58.0',
    '0.59.0',
    '0.60.0',
    '0.61.0',
  ],
  sentinel: ['0.18.13', '0.19.5', '0.20.0', '0.21.1', '0.22.1', '0.23.1', '0.24.1'],
};
const POINTER = '/data/attributes';

const downloadUrl = (tool: PolicyTool, version: string) =>
  tool === 'opa'
    ? `https://github.com/open-policy-agent/opa/releases/download/v${version}/opa_linux_amd64_static`
    : `https://releases.hashicorp.com/sentinel/${version}/sentinel_${version}_linux_amd64.zip`;

/** A shipped release's id: stable across stores, so an override of it finds it again. */
const shippedId = (tool: PolicyTool, version: string) =>
  `tool-${createHash('sha256').update(`${tool}:${version}`).digest('hex').slice(0, 16)}`;

function shippedRow(tool: PolicyTool, version: string): PolicyToolVersionRow {
  return { id: shippedId(tool, version), tool, version, ...shippedRelease(downloadUrl(tool, version)) };
}

/**
 * `/api/v2/admin/opa-versions` and `/admin/sentinel-versions`: the same rules as the terraform
 * versions (service.ts), over the releases of one policy engine. A version that a policy set of
 * that kind names as its `policy-tool-version` is in use and cannot be deleted.
 */
export class PolicyToolVersionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly tool: PolicyTool,
  ) {}

  private all(): PolicyToolVersionRow[] {
    const stored = new Map(
      this.db
        .select()
        .from(policyToolVersions)
        .where(eq(policyToolVersions.tool, this.tool))
        .all()
        .map((row) => [row.id, row]),
    );
    const shipped = SHIPPED[this.tool].map((version) => stored.get(shippedId(this.tool, version)) ?? shippedRow(this.tool, version));
    const shippedIds = new Set(shipped.map((row) => row.id));
    const added = [...stored.values()]
      .filter((row) => !shippedIds.has(row.id))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    return [...shipped, ...added].filter((row) => !row.removed);
  }

  list(filter: ToolVersionFilter): PolicyToolVersionRow[] {
    return this.all().filter(
      (row) =>
        (filter.version === undefined || row.version === filter.version) &&
        (filter.search === undefined || row.version.includes(filter.search)),
    );
  }

  /** How many policy sets of this engine pin `version`. */
  usage(version: string): number {
    const where = and(eq(policySets.kind, this.tool), eq(policySets.policyToolVersion, version));
    return this.db.select({ n: count() }).from(policySets).where(where).get()?.n ?? 0;
  }

  show(id: string): PolicyToolVersionRow {
    const row = this.all().find((candidate) => candidate.id === id);
    if (!row) throw NOT_FOUND;
    return row;
  }

  create(attributes: Attributes): PolicyToolVersionRow {
    const version = attributes.string('version');
    if (version === undefined || version === null || version === '') throw unprocessable("version can't be blank", `${POINTER}/version`);
    // A shipped release deleted earlier and added again takes its old id (the store keeps one row per version).
    const removed = this.db
      .select({ id: policyToolVersions.id })
      .from(policyToolVersions)
      .where(and(eq(policyToolVersions.tool, this.tool), eq(policyToolVersions.version, version), eq(policyToolVersions.removed, true)))
      .get();
    const base: PolicyToolVersionRow = { id: removed?.id ?? newId('tool'), tool: this.tool, ...operatorRelease(this.clock.now()) };
    return this.save(applyToolAttributes(base, attributes));
  }

  update(id: string, attributes: Attributes): PolicyToolVersionRow {
    return this.save(applyToolAttributes(this.show(id), attributes));
  }

  /** A shipped release is marked removed; an added one goes. Either way only when no policy set uses it. */
  destroy(id: string): void {
    const row = this.show(id);
    if (this.usage(row.version) > 0) throw unprocessable(`version ${row.version} is in use by policy sets and cannot be deleted`);
    if (SHIPPED[this.tool].some((version) => shippedId(this.tool, version) === row.id)) this.write({ ...row, removed: true });
    else this.db.delete(policyToolVersions).where(eq(policyToolVersions.id, row.id)).run();
  }

  private save(row: PolicyToolVersionRow): PolicyToolVersionRow {
    const clash = this.all().find((other) => other.version === row.version && other.id !== row.id);
    if (clash) throw unprocessable('version has already been taken', `${POINTER}/version`);
    this.write(row);
    return row;
  }

  private write(row: PolicyToolVersionRow): void {
    this.db
      .insert(policyToolVersions)
      .values(row)
      .onConflictDoUpdate({ target: policyToolVersions.id, set: { ...row } })
      .run();
  }
}
