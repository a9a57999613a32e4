import type { Clock } from '../../core/clock.js';
import { ApiError, notFound, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { NoCodeVariableOption } from '../../store/tables.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import { deleteNoCode, findNoCode, insertNoCode, newNoCodeRow, noCodeOf, updateNoCode, type NoCodeRow } from './no-code-repo.js';
import * as repo from './repo.js';
import type { RegistryService } from './service.js';

/** A variable option as a request gives it (its id is made here). */
export type VariableOptionInput = Omit<NoCodeVariableOption, 'id'>;

export interface NoCodeInput {
  /** The `registry-module` relationship's id; required on create, must be unchanged on update. */
  moduleId?: string;
  enabled?: boolean;
  versionPin?: string;
  /** Replaces every option when given. */
  variableOptions?: VariableOptionInput[];
}

export interface LoadedNoCode {
  row: NoCodeRow;
  organizationName: string;
}

/** One input of a module version as a no-code workspace offers it. */
export interface NoCodeVariable {
  name: string;
  type: string;
  description: string;
  required: boolean;
  options: string[];
}

const PIN_INVALID =
  'Validation failed: Provided version pin is not equal to latest or provided string does not represent an existing version of the module.';

/**
 * No-code modules: a registry module offered for no-code provisioning, with a version pin and
 * the values each variable may take. Managing them takes Manage Modules, like the modules
 * themselves (others get 404); any member reads them.
 */
export class NoCodeService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly registry: RegistryService,
  ) {}

  private module(organization: OrganizationRow, moduleId: string | undefined): repo.ModuleRow {
    if (moduleId === undefined) throw unprocessable('registry-module is required', '/data/relationships/registry-module');
    const module = repo.findModuleById(this.db, moduleId);
    if (!module || module.organizationId !== organization.id) throw notFound(`registry module ${moduleId} not found`);
    return module;
  }

  private checkPin(module: repo.ModuleRow, pin: string): string {
    if (pin === '' || pin === 'latest' || repo.findVersion(this.db, module.id, pin)) return pin;
    throw unprocessable(PIN_INVALID, '/data/attributes/version-pin');
  }

  private options(input: VariableOptionInput[] | undefined): NoCodeVariableOption[] | undefined {
    return input?.map((option) => ({ id: newId('ncvo'), ...option }));
  }

  create(principal: Principal, organizationName: string, input: NoCodeInput): LoadedNoCode {
    const { organization, canManage } = this.registry.organization(principal, organizationName);
    if (!canManage) throw NOT_FOUND;
    const module = this.module(organization, input.moduleId);
    const versionPin = this.checkPin(module, input.versionPin ?? '');
    if (noCodeOf(this.db, [module.id]).length > 0) {
      throw new ApiError(422, 'Registry module already has a no-code module', {
        title: 'invalid attribute',
        pointer: '/data/relationships/registry-module',
      });
    }
    const variableOptions = this.options(input.variableOptions);
    const row = newNoCodeRow(module, this.clock.now(), {
      versionPin,
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(variableOptions ? { variableOptions } : {}),
    });
    this.db.transaction((tx) => insertNoCode(tx, row));
    return { row, organizationName: organization.name };
  }

  /** The row and its organization if the caller may read it (404 otherwise), and whether it may manage it. */
  private find(principal: Principal, id: string): LoadedNoCode & { organization: OrganizationRow; canManage: boolean } {
    const row = findNoCode(this.db, id);
    const owner = row && organizationsRepo.findOrganizationById(this.db, row.organizationId);
    if (!row || !owner) throw NOT_FOUND;
    const { organization, canManage } = this.registry.organization(principal, owner.name);
    return { row, organizationName: organization.name, organization, canManage };
  }

  get(principal: Principal, id: string): LoadedNoCode {
    const { row, organizationName } = this.find(principal, id);
    return { row, organizationName };
  }

  update(principal: Principal, id: string, input: NoCodeInput): LoadedNoCode {
    const { row, organization, canManage } = this.find(principal, id);
    if (!canManage) throw NOT_FOUND;
    const module = this.module(organization, row.moduleId);
    if (input.moduleId !== undefined && input.moduleId !== row.moduleId) {
      throw unprocessable('registry-module cannot be changed', '/data/relationships/registry-module');
    }
    const variableOptions = this.options(input.variableOptions);
    const changes = {
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.versionPin !== undefined ? { versionPin: this.checkPin(module, input.versionPin) } : {}),
      ...(variableOptions ? { variableOptions } : {}),
    };
    if (Object.keys(changes).length === 0) return { row, organizationName: organization.name };
    const updated = { ...row, ...changes, updatedAt: this.clock.now() };
    this.db.transaction((tx) => updateNoCode(tx, row, { ...changes, updatedAt: updated.updatedAt }));
    return { row: updated, organizationName: organization.name };
  }

  destroy(principal: Principal, id: string): void {
    const { row, canManage } = this.find(principal, id);
    if (!canManage) throw NOT_FOUND;
    this.db.transaction((tx) => deleteNoCode(tx, row));
  }

  /** The root inputs of one parsed version of the module, each with the options the no-code module offers. */
  variables(principal: Principal, id: string, version: string): NoCodeVariable[] {
    const { row } = this.find(principal, id);
    const found = repo.findVersion(this.db, row.moduleId, version);
    const details = found && repo.detailsOf(this.db, [found.id]).get(found.id);
    if (!details) throw notFound(`version ${version} of the no-code module's registry module has no parsed configuration`);
    const optionsOf = new Map(row.variableOptions.map((option) => [option.variableName, option.options]));
    return details.root.inputs.map((input) => ({
      name: input.name,
      type: input.type,
      description: input.description,
      required: input.required,
      options: optionsOf.get(input.name) ?? [],
    }));
  }
}
