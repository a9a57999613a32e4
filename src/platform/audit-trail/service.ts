import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { insertRows } from '../../store/sql-lists.js';
import type { Db } from '../../store/store.js';
import { auditEvents } from '../../store/tables.js';
import type { Page } from '../jsonapi/pagination.js';
import { pageOfAuditEvents, type AuditEventRow } from './repo.js';

/** Reads of an organization's audit trail (the recorder writes it); the audit-trail token already chose the organization. */
export class AuditTrailService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  page(organizationId: string, since: Date | undefined, page: Page): { rows: AuditEventRow[]; total: number } {
    return pageOfAuditEvents(this.db, organizationId, since, page.offset, page.size);
  }

  /**
   * Events in one transaction, one per resource id, as if the organization's owner had updated
   * each (the control plane's bulk endpoint, for benchmarks and tests of long trails).
   */
  recordMany(organization: { id: string; name: string }, resourceIds: readonly string[]): void {
    const timestamp = this.clock.now();
    const rows = resourceIds.map((resourceId) => ({
      id: randomUUID(),
      organizationId: organization.id,
      timestamp,
      accessorId: organization.id,
      accessorDescription: organization.name,
      accessorType: 'Client',
      requestId: randomUUID(),
      resourceId,
      resourceType: 'workspace',
      action: 'update',
    }));
    this.db.transaction((tx) => insertRows(tx, auditEvents, rows));
  }
}
