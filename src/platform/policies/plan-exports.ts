import { eq } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { isoTimestamp } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { planExports } from '../../store/tables.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { RunService } from '../runs/service.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { tarGz } from './tar.js';

export type PlanExportRow = typeof planExports.$inferSelect;

export const PLAN_EXPORT_TYPES = ['sentinel-mock-bundle-v0'] as const;

export function planExportResource(row: PlanExportRow): ResourceObject {
  return {
    id: row.id,
    type: 'plan-exports',
    attributes: { 'data-type': row.dataType, status: row.status, 'status-timestamps': row.statusTimestamps },
    relationships: { plan: { data: { id: row.planId, type: 'plans' } } },
    links: { self: `/api/v2/plan-exports/${row.id}`, download: `/api/v2/plan-exports/${row.id}/download` },
  };
}

/**
 * Plan exports: a sentinel mock bundle of a finished plan. No sentinel mock generator runs here:
 * the bundle is a `.tar.gz` holding the plan's JSON (`terraform show -json`), built when it is
 * downloaded, so an export is `finished` as soon as it is made. Reading the plan's data takes
 * the right to read state versions, as the plan's JSON does.
 */
export class PlanExportService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly runs: RunService,
    private readonly workspaces: WorkspaceService,
  ) {}

  private plan(principal: Principal, planId: string) {
    const phase = this.runs.phase(principal, planId, 'plan');
    const { located } = this.runs.locate(principal, phase.runId);
    this.workspaces.require(located, 'can-read-state-versions');
    return phase;
  }

  create(principal: Principal, planId: string, dataType: string): PlanExportRow {
    const phase = this.plan(principal, planId);
    if (!phase.jsonOutput) throw unprocessable('the plan has not finished: it has no data to export', '/data/relationships/plan');
    const at = this.clock.now();
    const stamp = isoTimestamp(at);
    const row: PlanExportRow = {
      id: newId('pe'),
      planId: phase.id,
      dataType,
      status: 'finished',
      statusTimestamps: { 'queued-at': stamp, 'finished-at': stamp },
      createdAt: at,
    };
    this.db.insert(planExports).values(row).run();
    return row;
  }

  show(principal: Principal, id: string): PlanExportRow {
    const row = this.db.select().from(planExports).where(eq(planExports.id, id)).get();
    if (!row) throw NOT_FOUND;
    this.plan(principal, row.planId);
    return row;
  }

  download(principal: Principal, id: string): Buffer {
    const row = this.show(principal, id);
    const phase = this.plan(principal, row.planId);
    if (!phase.jsonOutput) throw NOT_FOUND;
    return tarGz([{ name: 'plan.json', content: phase.jsonOutput }], row.createdAt);
  }

  destroy(principal: Principal, id: string): void {
    const row = this.show(principal, id);
    this.db.delete(planExports).where(eq(planExports.id, row.id)).run();
  }
}
