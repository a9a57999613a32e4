import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { refusingDuplicates } from '../db-errors.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import type { OrganizationService } from '../organizations/service.js';
import { findProject } from '../projects/repo.js';
import { findWorkspace } from '../workspaces/repo.js';
import { checkedLevel, MEMBER_TYPES, type PolicyInput, type PolicySetInput } from './input.js';
import * as repo from './repo.js';
import type { ListFilter, MemberKind, PolicyRow, PolicySetMembers, PolicySetRow } from './repo.js';

const POINTER = '/data/attributes';
const taken = () => unprocessable('name has already been taken', `${POINTER}/name`);

export interface Owned<T> {
  row: T;
  organization: OrganizationRow;
}

/**
 * Policies and policy sets of an organization: members read them, Manage Policies writes them.
 * A set's members (policies, workspaces, projects, exclusions) belong to its organization, and
 * a set's policies are of its kind; a request breaking either changes nothing.
 */
export class PolicyService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
  ) {}

  private manage(principal: Principal, organization: OrganizationRow): void {
    new Permissions(this.db).require(principal, organization, 'manage-policies');
  }

  private organizationOf(principal: Principal, organizationId: string): OrganizationRow {
    const organization = organizationsRepo.findOrganizationById(this.db, organizationId);
    if (!organization || !new Permissions(this.db).can(principal, organization, 'read')) throw NOT_FOUND;
    return organization;
  }

  // Policies

  policy(principal: Principal, id: string, write = false): Owned<PolicyRow> {
    const row = repo.findPolicy(this.db, id);
    if (!row) throw NOT_FOUND;
    const organization = this.organizationOf(principal, row.organizationId);
    if (write) this.manage(principal, organization);
    return { row, organization };
  }

  setsOf(policyIds: readonly string[]): Map<string, string[]> {
    return repo.setsOfPolicies(this.db, policyIds);
  }

  listPolicies(principal: Principal, organizationName: string, filter: ListFilter, offset: number, limit: number) {
    const organization = this.organizations.visible(principal, organizationName);
    return { organization, ...repo.listPolicies(this.db, organization.id, filter, offset, limit) };
  }

  createPolicy(principal: Principal, organizationName: string, input: PolicyInput & { level?: string }): Owned<PolicyRow> {
    const organization = this.organizations.visible(principal, organizationName);
    this.manage(principal, organization);
    const kind = input.kind ?? 'sentinel';
    const at = this.clock.now();
    const row: PolicyRow = {
      id: newId('pol'),
      organizationId: organization.id,
      name: input.name as string,
      kind,
      query: input.query ?? null,
      description: input.description ?? null,
      enforcementLevel: checkedLevel(input.level as string, kind),
      source: null,
      createdAt: at,
      updatedAt: at,
    };
    this.checkQuery(row);
    refusingDuplicates(() => repo.insertPolicy(this.db, row), taken);
    return { row, organization };
  }

  updatePolicy(principal: Principal, id: string, input: PolicyInput & { level?: string }): Owned<PolicyRow> {
    const { row, organization } = this.policy(principal, id, true);
    if (input.kind !== undefined && input.kind !== row.kind) throw unprocessable('kind cannot be changed', `${POINTER}/kind`);
    if (input.name !== undefined && input.name !== row.name) throw unprocessable('name cannot be changed', `${POINTER}/name`);
    const updated: PolicyRow = {
      ...row,
      ...(input.query !== undefined ? { query: input.query } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.level !== undefined ? { enforcementLevel: checkedLevel(input.level, row.kind) } : {}),
      updatedAt: this.clock.now(),
    };
    this.checkQuery(updated);
    repo.updatePolicy(this.db, id, updated);
    return { row: updated, organization };
  }

  upload(principal: Principal, id: string, source: string): void {
    this.policy(principal, id, true);
    repo.updatePolicy(this.db, id, { source, updatedAt: this.clock.now() });
  }

  download(principal: Principal, id: string): string {
    const { row } = this.policy(principal, id);
    if (row.source === null) throw NOT_FOUND;
    return row.source;
  }

  deletePolicy(principal: Principal, id: string): void {
    this.policy(principal, id, true);
    repo.deletePolicy(this.db, id);
  }

  private checkQuery(row: PolicyRow): void {
    if (row.kind === 'opa' && !row.query) throw unprocessable("query can't be blank for opa policies", `${POINTER}/query`);
    if (row.kind === 'sentinel' && row.query) throw unprocessable('query can only be set for opa policies', `${POINTER}/query`);
  }

  // Policy sets

  policySet(principal: Principal, id: string, write = false): Owned<PolicySetRow> & { members: PolicySetMembers } {
    const row = repo.findPolicySet(this.db, id);
    if (!row) throw NOT_FOUND;
    const organization = this.organizationOf(principal, row.organizationId);
    if (write) this.manage(principal, organization);
    return { row, organization, members: repo.membersOf(this.db, id) };
  }

  membersOf(id: string): PolicySetMembers {
    return repo.membersOf(this.db, id);
  }

  listPolicySets(principal: Principal, organizationName: string, filter: ListFilter, offset: number, limit: number) {
    const organization = this.organizations.visible(principal, organizationName);
    return { organization, ...repo.listPolicySets(this.db, organization.id, filter, offset, limit) };
  }

  createPolicySet(principal: Principal, organizationName: string, input: PolicySetInput) {
    const organization = this.organizations.visible(principal, organizationName);
    this.manage(principal, organization);
    const at = this.clock.now();
    const row: PolicySetRow = {
      id: newId('polset'),
      organizationId: organization.id,
      name: input.name as string,
      description: input.description ?? null,
      kind: input.kind ?? 'sentinel',
      global: input.global ?? false,
      overridable: input.overridable ?? false,
      agentEnabled: input.agentEnabled ?? false,
      policyToolVersion: input.policyToolVersion ?? null,
      policiesPath: input.policiesPath ?? null,
      createdAt: at,
      updatedAt: at,
    };
    const members: PolicySetMembers = {
      policies: input.members.policies ?? [],
      workspaces: input.members.workspaces ?? [],
      projects: input.members.projects ?? [],
      'workspace-exclusions': input.members['workspace-exclusions'] ?? [],
    };
    this.checkSet(row, members, '/data/relationships');
    refusingDuplicates(
      () =>
        this.db.transaction((tx) => {
          repo.insertPolicySet(tx, row);
          for (const kind of Object.keys(MEMBER_TYPES) as MemberKind[]) repo.attach(tx, row.id, kind, members[kind]);
        }),
      taken,
    );
    return { row, organization, members };
  }

  updatePolicySet(principal: Principal, id: string, input: PolicySetInput) {
    const { row, organization, members } = this.policySet(principal, id, true);
    if (input.kind !== undefined && input.kind !== row.kind) throw unprocessable('kind cannot be changed', `${POINTER}/kind`);
    const updated: PolicySetRow = {
      ...row,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.global !== undefined ? { global: input.global } : {}),
      ...(input.overridable !== undefined ? { overridable: input.overridable } : {}),
      ...(input.agentEnabled !== undefined ? { agentEnabled: input.agentEnabled } : {}),
      ...(input.policyToolVersion !== undefined ? { policyToolVersion: input.policyToolVersion } : {}),
      ...(input.policiesPath !== undefined ? { policiesPath: input.policiesPath } : {}),
      updatedAt: this.clock.now(),
    };
    const merged: PolicySetMembers = { ...members, ...input.members };
    this.checkSet(updated, merged, '/data/relationships');
    refusingDuplicates(
      () =>
        this.db.transaction((tx) => {
          repo.updatePolicySet(tx, id, updated);
          for (const [kind, ids] of Object.entries(input.members) as [MemberKind, string[]][]) repo.replaceMembers(tx, id, kind, ids);
        }),
      taken,
    );
    return { row: updated, organization, members: merged };
  }

  /** `POST`/`DELETE /policy-sets/:id/relationships/<kind>`: adds or removes members, leaving the rest. */
  changeMembers(principal: Principal, id: string, kind: MemberKind, ids: readonly string[], adding: boolean): void {
    const { row, members } = this.policySet(principal, id, true);
    if (ids.length === 0) throw unprocessable(`at least one ${MEMBER_TYPES[kind]} entry is required`, '/data');
    if (adding) {
      const merged = { ...members, [kind]: [...new Set([...members[kind], ...ids])] };
      this.checkSet(row, merged, '', kind);
      repo.attach(this.db, id, kind, ids);
    } else {
      repo.detach(this.db, id, kind, ids);
    }
    repo.updatePolicySet(this.db, id, { updatedAt: this.clock.now() });
  }

  deletePolicySet(principal: Principal, id: string): void {
    this.policySet(principal, id, true);
    repo.deletePolicySet(this.db, id);
  }

  /**
   * The rules joining a set's attributes and members, on the set as it would be saved. `base` is
   * where the members were named (`/data/relationships` in a set body, `` in a relationship body,
   * whose entries are `/data/<n>`); `only` limits the member checks to the kind the body named.
   */
  private checkSet(row: PolicySetRow, members: PolicySetMembers, base: string, only?: MemberKind): void {
    if (row.overridable && row.kind !== 'opa')
      throw unprocessable('overridable can only be set for opa policy sets', `${POINTER}/overridable`);
    if (row.global && (members.workspaces.length > 0 || members.projects.length > 0)) {
      const kind = members.workspaces.length > 0 ? 'workspaces' : 'projects';
      const pointer = only ? '/data' : `${base}/${kind}`;
      throw unprocessable(`a global policy set cannot be attached to ${kind}`, pointer);
    }
    const at = (kind: MemberKind, index: number) => (only ? `/data/${index}` : `${base}/${kind}/data/${index}`);
    const kinds = only ? [only] : (Object.keys(MEMBER_TYPES) as MemberKind[]);
    for (const kind of kinds) {
      members[kind].forEach((memberId, index) => {
        const problem = this.memberProblem(row, kind, memberId);
        if (problem) throw unprocessable(problem, at(kind, index));
      });
    }
  }

  private memberProblem(set: PolicySetRow, kind: MemberKind, id: string): string | undefined {
    if (kind === 'policies') {
      const policy = repo.findPolicy(this.db, id);
      if (!policy || policy.organizationId !== set.organizationId) return `policy ${id} does not exist in this organization`;
      if (policy.kind !== set.kind) return `policy ${policy.name} is a ${policy.kind} policy; this policy set is ${set.kind}`;
      return undefined;
    }
    if (kind === 'projects') {
      const project = findProject(this.db, id);
      return !project || project.organizationId !== set.organizationId ? `project ${id} does not exist in this organization` : undefined;
    }
    const workspace = findWorkspace(this.db, id);
    return !workspace || workspace.organizationId !== set.organizationId
      ? `workspace ${id} does not exist in this organization`
      : undefined;
  }
}
