import type { Db } from '../../store/store.js';
import type { Page } from '../jsonapi/pagination.js';
import { pageOfAuditEvents, type AuditEventRow } from './repo.js';

/** Reads of an organization's audit trail (the recorder writes it); the audit-trail token already chose the organization. */
export class AuditTrailService {
  constructor(private readonly db: Db) {}

  page(organizationId: string, since: Date | undefined, page: Page): { rows: AuditEventRow[]; total: number } {
    return pageOfAuditEvents(this.db, organizationId, since, page.offset, page.size);
  }
}
