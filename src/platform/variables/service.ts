import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { WorkspaceService, type Located } from '../workspaces/service.js';
import * as repo from './repo.js';
import type { VariableCategory, VariableRow } from './repo.js';

export interface VariableInput {
  key?: string;
  value?: string;
  description?: string | null;
  category?: VariableCategory;
  hcl?: boolean;
  sensitive?: boolean;
}

const POINTER = '/data/attributes';
/**
 * Environment variable names as shells accept them. Terraform variable keys are not checked as
 * HCL identifiers: the real service accepts any key (the Go client's tests use UUIDs); a key that
 * is not a valid name simply never matches a declared variable.
 */
const KEY_PATTERNS: Record<VariableCategory, RegExp> = {
  terraform: /\S/,
  env: /^[A-Za-z_][A-Za-z0-9_]*$/,
};

/** The longest description the real service keeps. */
export const DESCRIPTION_LIMIT = 512;

/** The rules a variable's key and `hcl` follow wherever it lives (a workspace or a variable set). */
export function checkVariableShape(variable: Pick<VariableRow, 'key' | 'category' | 'hcl' | 'description'>): void {
  if ((variable.description?.length ?? 0) > DESCRIPTION_LIMIT) {
    throw unprocessable(`Description is too long (maximum is ${DESCRIPTION_LIMIT} characters)`, `${POINTER}/description`);
  }
  if (!KEY_PATTERNS[variable.category].test(variable.key)) {
    throw unprocessable(
      `key "${variable.key}" is not a valid ${variable.category === 'env' ? 'environment' : 'terraform'} variable name`,
      `${POINTER}/key`,
    );
  }
  if (variable.hcl && variable.category === 'env') throw unprocessable('hcl is only valid for terraform variables', `${POINTER}/hcl`);
}

const newVersionId = () => randomBytes(20).toString('hex');

/**
 * Workspace variables. Reading needs `can-read-variable`, changing `can-update-variable` (a 404
 * otherwise, as for a missing workspace). Keys are unique per category; HCL is for terraform
 * variables only; a sensitive variable stays sensitive, and its value is write-only.
 */
export class VariableService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly workspaces: WorkspaceService,
  ) {}

  list(located: Located, offset: number, limit: number) {
    this.workspaces.require(located, 'can-read-variable');
    return repo.listVariables(this.db, located.workspace.id, offset, limit);
  }

  /** The variable `id` of the located workspace; a 404 when it belongs elsewhere. */
  find(located: Located, id: string): VariableRow {
    this.workspaces.require(located, 'can-read-variable');
    const variable = repo.findVariable(this.db, id);
    if (!variable || variable.workspaceId !== located.workspace.id) throw NOT_FOUND;
    return variable;
  }

  private check(located: Located, variable: Pick<VariableRow, 'key' | 'category' | 'hcl' | 'description'>, except?: string): void {
    checkVariableShape(variable);
    const existing = repo.findVariableByKey(this.db, located.workspace.id, variable.category, variable.key);
    if (existing && existing.id !== except) throw unprocessable('key has already been taken', `${POINTER}/key`);
  }

  create(located: Located, input: VariableInput): VariableRow {
    this.workspaces.require(located, 'can-update-variable');
    if (input.key === undefined || input.key === '') throw unprocessable("key can't be blank", `${POINTER}/key`);
    if (input.category === undefined) throw unprocessable('category is required: terraform or env', `${POINTER}/category`);
    const variable: VariableRow = {
      id: newId('var'),
      workspaceId: located.workspace.id,
      key: input.key,
      value: input.value ?? '',
      description: input.description ?? null,
      category: input.category,
      hcl: input.hcl ?? false,
      sensitive: input.sensitive ?? false,
      versionId: newVersionId(),
      createdAt: this.clock.now(),
    };
    this.check(located, variable);
    repo.insertVariable(this.db, variable);
    return variable;
  }

  update(located: Located, id: string, input: VariableInput): VariableRow {
    this.workspaces.require(located, 'can-update-variable');
    const current = this.find(located, id);
    if (current.sensitive && input.sensitive === false) {
      throw unprocessable('a sensitive variable cannot be made non-sensitive', `${POINTER}/sensitive`);
    }
    const changes: Partial<VariableRow> = Object.fromEntries(
      Object.entries({
        key: input.key,
        value: input.value,
        description: input.description,
        category: input.category,
        hcl: input.hcl,
        sensitive: input.sensitive,
      }).filter(([, value]) => value !== undefined),
    );
    // Every PATCH is a new version, one that sets nothing too (as the real service and its Go
    // client's test have it).
    const updated: VariableRow = { ...current, ...changes, versionId: newVersionId() };
    if (updated.key === '') throw unprocessable("key can't be blank", `${POINTER}/key`);
    this.check(located, updated, current.id);
    repo.updateVariable(this.db, id, { ...changes, versionId: updated.versionId });
    return updated;
  }

  destroy(located: Located, id: string): void {
    this.workspaces.require(located, 'can-update-variable');
    repo.deleteVariable(this.db, this.find(located, id).id);
  }

  /** The workspace a legacy `/vars/:id` path names through its variable. */
  locateVariable(principal: Parameters<WorkspaceService['locate']>[0], id: string): Located {
    const variable = repo.findVariable(this.db, id);
    if (!variable) throw NOT_FOUND;
    return this.workspaces.locate(principal, variable.workspaceId);
  }
}
