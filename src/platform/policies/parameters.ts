import { and, asc, count, eq } from 'drizzle-orm';
import type { SecretsAtRest } from '../../core/at-rest.js';
import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { policySetParameters } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';
import type { Principal } from '../auth/principal.js';
import { refusingDuplicates } from '../db-errors.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { PolicyService } from './service.js';

export type ParameterRow = typeof policySetParameters.$inferSelect;

export interface ParameterInput {
  key?: string;
  value?: string;
  category?: string;
  sensitive?: boolean;
}

const POINTER = '/data/attributes';
const taken = () => unprocessable('key has already been taken', `${POINTER}/key`);

/**
 * A policy set's parameters (`/policy-sets/:id/parameters`): members of the organization read
 * them, Manage Policies writes them. A sensitive value is sealed in the row and never rendered;
 * a parameter once sensitive stays so.
 */
export class PolicySetParameterService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly atRest: SecretsAtRest,
    private readonly policies: PolicyService,
  ) {}

  list(principal: Principal, policySetId: string, offset: number, limit: number) {
    const { row } = this.policies.policySet(principal, policySetId);
    const where = eq(policySetParameters.policySetId, row.id);
    const rows = this.db
      .select()
      .from(policySetParameters)
      .where(where)
      .orderBy(asc(policySetParameters.createdAt), asc(policySetParameters.id))
      .limit(limit)
      .offset(offset)
      .all();
    const total = this.db.select({ n: count() }).from(policySetParameters).where(where).get()?.n ?? 0;
    return { rows, total };
  }

  find(principal: Principal, policySetId: string, id: string, write = false): ParameterRow {
    const { row: set } = this.policies.policySet(principal, policySetId, write);
    const row = this.db
      .select()
      .from(policySetParameters)
      .where(and(eq(policySetParameters.id, id), eq(policySetParameters.policySetId, set.id)))
      .get();
    if (!row) throw NOT_FOUND;
    return row;
  }

  create(principal: Principal, policySetId: string, input: ParameterInput): ParameterRow {
    const { row: set } = this.policies.policySet(principal, policySetId, true);
    if (input.key === undefined || input.key === '') throw unprocessable("key can't be blank", `${POINTER}/key`);
    if (input.category === undefined) throw unprocessable("category can't be blank", `${POINTER}/category`);
    if (input.category !== 'policy-set') throw unprocessable('category must be policy-set', `${POINTER}/category`);
    const sensitive = input.sensitive ?? false;
    const value = input.value ?? '';
    const row: ParameterRow = {
      id: newId('var'),
      policySetId: set.id,
      key: input.key,
      value: sensitive ? this.atRest.seal(value) : value,
      sensitive,
      createdAt: this.clock.now(),
    };
    refusingDuplicates(() => this.db.insert(policySetParameters).values(row).run(), taken);
    return row;
  }

  update(principal: Principal, policySetId: string, id: string, input: ParameterInput): ParameterRow {
    const current = this.find(principal, policySetId, id, true);
    if (input.category !== undefined && input.category !== 'policy-set') {
      throw unprocessable('category must be policy-set', `${POINTER}/category`);
    }
    if (current.sensitive && input.sensitive === false) {
      throw unprocessable('a sensitive parameter cannot be made non-sensitive', `${POINTER}/sensitive`);
    }
    if (input.key === '') throw unprocessable("key can't be blank", `${POINTER}/key`);
    const sensitive = input.sensitive ?? current.sensitive;
    // The value in the clear: the new one, or the current one (opened when it was sealed).
    const plain = input.value ?? (current.sensitive ? (this.atRest.open(current.value) ?? '') : current.value);
    const changes: Partial<ParameterRow> = {
      ...(input.key !== undefined ? { key: input.key } : {}),
      ...(input.value !== undefined || sensitive !== current.sensitive
        ? { value: sensitive ? this.atRest.seal(plain) : plain, sensitive }
        : {}),
    };
    if (Object.keys(changes).length > 0) {
      refusingDuplicates(() => updateRows(this.db, policySetParameters, changes, eq(policySetParameters.id, id)), taken);
    }
    return { ...current, ...changes };
  }

  destroy(principal: Principal, policySetId: string, id: string): void {
    const row = this.find(principal, policySetId, id, true);
    this.db.delete(policySetParameters).where(eq(policySetParameters.id, row.id)).run();
  }
}
