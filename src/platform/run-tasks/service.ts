import type { Clock } from '../../core/clock.js';
import type { SecretsAtRest } from '../../core/at-rest.js';
import type { Dialect } from '../../core/dialect.js';
import { conflict, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { GlobalConfiguration } from '../../store/tables.js';
import { requireAgentPoolOf } from '../agent-pools/rules.js';
import { Permissions, type OrganizationPermission } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { refusingDuplicates } from '../db-errors.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { Page } from '../jsonapi/pagination.js';
import * as organizationsRepo from '../organizations/repo.js';
import { entitlements } from '../organizations/resource.js';
import type { RunTaskInput } from './input.js';
import { inSlices } from '../sql-slices.js';
import * as repo from './repo.js';
import type { RunTaskRow } from './repo.js';

const DEFAULT_GLOBAL: GlobalConfiguration = { enabled: false, stages: ['post_plan'], 'enforcement-level': 'advisory' };

/**
 * Whether the organization may use run tasks at all. Run tasks are a paid-tier feature; an
 * organization whose entitlement set says `run-tasks: false` gets 404 from every run task
 * endpoint, as if the feature did not exist for it (the real client turns that into
 * "resource not found", the same error it reports for a missing organization).
 */
export function runTasksEntitled(organization: OrganizationRow): boolean {
  return entitlements(organization)['run-tasks'] !== false;
}

export function globalRunTasksEntitled(organization: OrganizationRow): boolean {
  return entitlements(organization)['global-run-tasks'] !== false;
}

/**
 * Run tasks of an organization. Reading and changing them needs Manage Run Tasks; creating one
 * needs owner permission (the spec's "token with owner permission"), which the organization
 * token does not have.
 */
export class RunTaskService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dialect: Dialect,
    private readonly atRest: SecretsAtRest,
  ) {}

  organization(principal: Principal, name: string, need: OrganizationPermission = 'manage-run-tasks'): OrganizationRow {
    const organization = organizationsRepo.findOrganizationByName(this.db, name);
    if (!organization || !runTasksEntitled(organization)) throw NOT_FOUND;
    new Permissions(this.db).require(principal, organization, need);
    return organization;
  }

  visible(principal: Principal, id: string): { task: RunTaskRow; organization: OrganizationRow } {
    const task = repo.findRunTask(this.db, id);
    const organization = task && organizationsRepo.findOrganizationById(this.db, task.organizationId);
    if (!task || !organization || !runTasksEntitled(organization)) throw NOT_FOUND;
    new Permissions(this.db).require(principal, organization, 'manage-run-tasks');
    return { task, organization };
  }

  private checkName(organization: OrganizationRow, name: string): void {
    if (repo.findRunTaskByName(this.db, organization.id, name)) throw unprocessable('name has already been taken', '/data/attributes/name');
  }

  private checkPool(organization: OrganizationRow, poolId: string | null | undefined): void {
    if (poolId === undefined || poolId === null) return;
    if (entitlements(organization)['private-run-tasks'] === false) {
      throw unprocessable('this organization is not entitled to private run tasks (agent pools)', '/data/relationships/agent-pool');
    }
    requireAgentPoolOf(this.db, organization.id, poolId, '/data/relationships/agent-pool/data/id');
  }

  /** Global configuration only where the organization is entitled to it; elsewhere it is ignored. */
  private globalConfiguration(
    organization: OrganizationRow,
    current: GlobalConfiguration | null,
    given: Partial<GlobalConfiguration> | undefined,
  ) {
    if (!globalRunTasksEntitled(organization)) return current;
    if (given === undefined) return current ?? DEFAULT_GLOBAL;
    return { ...DEFAULT_GLOBAL, ...current, ...given };
  }

  /** One page of the organization's tasks (the caller already passed `organization`). */
  list(organization: OrganizationRow, page: Page) {
    return repo.listRunTasks(this.db, organization.id, page.offset, page.size);
  }

  create(organization: OrganizationRow, input: RunTaskInput): RunTaskRow {
    // The spec's create table requires a description string; the real client sends null when unset.
    if (wireBehaviours(this.dialect).runTaskDescriptionRequired && typeof input.description !== 'string') {
      throw unprocessable('description is required', '/data/attributes/description');
    }
    this.checkName(organization, input.name as string);
    this.checkPool(organization, input.agentPoolId);
    const task = newRunTaskRow(organization.id, input, this.clock.now(), this.atRest);
    task.globalConfiguration = this.globalConfiguration(organization, null, input.globalConfiguration);
    repo.insertRunTask(this.db, task);
    return task;
  }

  /**
   * Many tasks with the create defaults in one transaction (the control plane's bulk creation,
   * seeds); each input needs its name and URL.
   */
  createMany(organizationId: string, inputs: readonly (RunTaskInput & { name: string; url: string })[], db: DbOrTx = this.db): void {
    const at = this.clock.now();
    const rows = inputs.map((input) => newRunTaskRow(organizationId, input, at, this.atRest));
    refusingDuplicates(
      () => db.transaction((tx) => inSlices(rows).forEach((slice) => repo.insertRunTasks(tx, slice))),
      () => conflict('some run-tasks names are already taken'),
    );
  }

  /** Absent attributes keep their values; `hmac-key: null` removes the key. */
  update(principal: Principal, id: string, input: RunTaskInput): { task: RunTaskRow; organization: OrganizationRow } {
    const { task, organization } = this.visible(principal, id);
    if (input.name !== undefined && input.name !== task.name) this.checkName(organization, input.name);
    this.checkPool(organization, input.agentPoolId);
    const updated: RunTaskRow = {
      ...task,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.hmacKey !== undefined ? { hmacKey: sealedKey(this.atRest, input.hmacKey) } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.agentPoolId !== undefined ? { agentPoolId: input.agentPoolId } : {}),
      globalConfiguration: this.globalConfiguration(organization, task.globalConfiguration, input.globalConfiguration),
    };
    repo.updateRunTask(this.db, id, updated);
    return { task: updated, organization };
  }

  destroy(principal: Principal, id: string): void {
    this.visible(principal, id);
    repo.deleteRunTask(this.db, id);
  }
}

/** The HMAC key as stored: sealed (delivery.ts opens it to sign), never in clear. */
function sealedKey(atRest: SecretsAtRest, key: string | null | undefined): string | null {
  return key ? atRest.sealMarked(key) : null;
}

/** A new task's row: the API's create defaults for what the input leaves out (no global configuration). */
function newRunTaskRow(organizationId: string, input: RunTaskInput, at: Date, atRest: SecretsAtRest): RunTaskRow {
  return {
    id: newId('task'),
    organizationId,
    name: input.name as string,
    url: input.url as string,
    description: input.description ?? null,
    category: 'task',
    hmacKey: sealedKey(atRest, input.hmacKey),
    enabled: input.enabled ?? true,
    globalConfiguration: null,
    agentPoolId: input.agentPoolId ?? null,
    createdAt: at,
  };
}
