import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { conflict, notFound, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { safeEqual, sha256Hex } from '../../core/crypto.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { backingDataDeleted, backingDataMove, type BackingDataAction } from '../backing-data.js';
import { lockerOf } from '../workspaces/locking.js';
import * as workspacesRepo from '../workspaces/repo.js';
import { WorkspaceService, type Located } from '../workspaces/service.js';
import { newUploadSecret, type StateKind } from './links.js';
import * as repo from './repo.js';
import type { StateVersionMeta, StateVersionOutputRow, StateVersionRow } from './repo.js';
import type { StateVersionCreator } from '../../store/tables.js';
import { resourcesOfState, type StateResource } from './resources.js';
import { parseState } from './state-file.js';

export interface CreateStateVersion {
  serial: number;
  md5: string;
  lineage?: string;
  force: boolean;
  /** The raw state, when the request carried it (base64-decoded); otherwise it is uploaded later. */
  state?: Buffer;
  jsonState?: Buffer;
}

/** A new version and, while it waits for its upload, the one-time secrets of its upload links. */
export interface CreatedStateVersion {
  version: StateVersionMeta;
  secrets: { state: string; json: string } | null;
}

/** How many versions' parsed resource lists are kept (oldest dropped first). */
const PARSED_RESOURCES_KEPT = 32;

const md5Hex = (data: Buffer) => createHash('md5').update(data).digest('hex');

/**
 * State versions. Creating one needs the workspace locked by the caller (as `terraform apply`
 * holds it); the serial never goes backwards and the lineage stays the same unless forced. The
 * state arrives in the request or through a one-time upload link; until then the version is
 * `pending` and not current (several may be pending at once). Finalizing records outputs and the resource count and makes the
 * version the workspace's current one, in one transaction.
 */
export class StateVersionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly workspaces: WorkspaceService,
  ) {}

  private readonly parsedResources = new Map<string, StateResource[]>();
  /** Told after a version becomes current or gets its backing data back (the retention sweep looks again); set by the door. */
  backingDataChanged: (workspaceId: string) => void = () => undefined;

  /** The version and its workspace, if the caller may read the workspace's state; 404 otherwise. */
  locate(principal: Principal, id: string): { version: StateVersionMeta; located: Located } {
    const version = repo.findStateVersion(this.db, id);
    if (!version) throw NOT_FOUND;
    const located = this.workspaces.locate(principal, version.workspaceId);
    this.workspaces.require(located, 'can-read-state-versions');
    return { version, located };
  }

  /** The workspace's current state file as text (what its next run plans against); null before its first. */
  currentStateText(workspaceId: string): string | null {
    const id = workspacesRepo.findWorkspace(this.db, workspaceId)?.currentStateVersionId;
    const data = id ? repo.stateData(this.db, id, 'state') : null;
    return data ? data.toString('utf8') : null;
  }

  current(located: Located): StateVersionMeta {
    this.workspaces.require(located, 'can-read-state-versions');
    const id = located.workspace.currentStateVersionId;
    const version = id ? repo.findStateVersion(this.db, id) : undefined;
    if (!version) throw notFound('the workspace has no state version yet');
    return version;
  }

  /**
   * The managed resource instances of the workspace's current state (none before its first
   * state). A finalized version never changes, so the last few parsed are kept by id.
   */
  resources(located: Located): { version: StateVersionMeta | null; resources: StateResource[] } {
    this.workspaces.require(located, 'can-read-state-versions');
    const id = located.workspace.currentStateVersionId;
    const version = id ? repo.findStateVersion(this.db, id) : undefined;
    if (!version) return { version: null, resources: [] };
    let resources = this.parsedResources.get(version.id);
    if (!resources) {
      resources = resourcesOfState(repo.stateData(this.db, version.id, 'state'));
      if (this.parsedResources.size >= PARSED_RESOURCES_KEPT) this.parsedResources.delete(this.parsedResources.keys().next().value!);
      this.parsedResources.set(version.id, resources);
    }
    return { version, resources };
  }

  list(located: Located, offset: number, limit: number) {
    this.workspaces.require(located, 'can-read-state-versions');
    return repo.listStateVersions(this.db, located.workspace.id, offset, limit);
  }

  private requireLockedByCaller(located: Located, principal: Principal): void {
    const holder = located.workspace.lockedBy;
    const caller = lockerOf(principal);
    if (!holder) throw conflict('The workspace must be locked by the caller to create a state version; it is not locked');
    if (holder.kind !== caller.kind || holder.id !== caller.id) {
      throw conflict('The workspace is locked by someone else; only the lock holder creates state versions');
    }
  }

  private checkAgainstCurrent(located: Located, serial: number, lineage: string | undefined, force: boolean): void {
    const id = located.workspace.currentStateVersionId;
    const current = id ? repo.findStateVersion(this.db, id) : undefined;
    if (!current || force) return;
    if (serial < current.serial) {
      throw conflict(`serial ${serial} is lower than the current state version's serial ${current.serial}; serials must not go backwards`);
    }
    if (lineage !== undefined && current.lineage !== null && lineage !== current.lineage) {
      throw conflict(`lineage "${lineage}" does not match the current state's lineage "${current.lineage}"; use force to replace it`);
    }
  }

  /**
   * The state a run's apply wrote becomes the workspace's next version. The run holds the
   * workspace, so no caller lock is asked for; the serial and lineage rules still hold (a state
   * they refuse throws, and the run errors). A state identical to the current one adds nothing.
   */
  recordFromRun(workspaceId: string, state: Buffer, createdBy: StateVersionCreator | null, _runId: string): StateVersionMeta | null {
    const workspace = workspacesRepo.findWorkspace(this.db, workspaceId);
    if (!workspace) throw NOT_FOUND;
    const currentId = workspace.currentStateVersionId;
    if (currentId && repo.stateData(this.db, currentId, 'state')?.equals(state)) return null;
    const parsed = parseState(state, '/');
    const current = currentId ? repo.findStateVersion(this.db, currentId) : undefined;
    if (current && parsed.serial !== null && parsed.serial < current.serial) {
      throw conflict(
        `serial ${parsed.serial} is lower than the current state version's serial ${current.serial}; serials must not go backwards`,
      );
    }
    if (current?.lineage && parsed.lineage && parsed.lineage !== current.lineage) {
      throw conflict(`lineage "${parsed.lineage}" does not match the current state's lineage "${current.lineage}"`);
    }
    const version: StateVersionRow = {
      id: newId('sv'),
      workspaceId,
      sequence: 0,
      serial: parsed.serial ?? (current?.serial ?? 0) + 1,
      lineage: parsed.lineage ?? null,
      md5: md5Hex(state),
      status: 'pending',
      state: null,
      jsonState: null,
      uploadSecret: null,
      jsonUploadSecret: null,
      resourceCount: 0,
      terraformVersion: null,
      stateFormatVersion: null,
      size: 0,
      createdBy,
      createdAt: this.clock.now(),
    };
    this.db.transaction((tx) => {
      version.sequence = repo.nextSequence(tx, workspaceId);
      repo.insertStateVersion(tx, version);
      this.finalize(tx, version, state);
    });
    this.backingDataChanged(version.workspaceId);
    return repo.findStateVersion(this.db, version.id) ?? null;
  }

  create(located: Located, principal: Principal, input: CreateStateVersion): CreatedStateVersion {
    this.workspaces.require(located, 'can-create-state-versions');
    this.requireLockedByCaller(located, principal);
    if (!/^[0-9a-f]{32}$/i.test(input.md5)) {
      throw unprocessable("md5 must be the 32 hexadecimal digits of the state's MD5 sum", '/data/attributes/md5');
    }
    this.checkAgainstCurrent(located, input.serial, input.lineage, input.force);
    if (input.state && md5Hex(input.state) !== input.md5.toLowerCase()) {
      throw unprocessable('md5 does not match the MD5 sum of the state', '/data/attributes/md5');
    }
    const parsed = input.state ? parseState(input.state, '/data/attributes/state') : null;
    const secrets = input.state ? null : { state: newUploadSecret(), json: newUploadSecret() };
    const version: StateVersionRow = {
      id: newId('sv'),
      workspaceId: located.workspace.id,
      sequence: 0,
      serial: input.serial,
      lineage: input.lineage ?? parsed?.lineage ?? null,
      md5: input.md5.toLowerCase(),
      status: 'pending',
      state: null,
      jsonState: input.jsonState ?? null,
      uploadSecret: secrets?.state.hash ?? null,
      jsonUploadSecret: input.jsonState ? null : (secrets?.json.hash ?? null),
      resourceCount: 0,
      terraformVersion: null,
      stateFormatVersion: null,
      size: 0,
      createdBy: lockerOf(principal),
      createdAt: this.clock.now(),
    };
    this.db.transaction((tx) => {
      version.sequence = repo.nextSequence(tx, located.workspace.id);
      repo.insertStateVersion(tx, version);
      if (input.state) this.finalize(tx, version, input.state);
    });
    if (input.state) this.backingDataChanged(version.workspaceId);
    const stored = repo.findStateVersion(this.db, version.id);
    if (!stored) throw NOT_FOUND;
    return { version: stored, secrets: secrets && { state: secrets.state.secret, json: secrets.json.secret } };
  }

  /** Stores the raw state, its outputs and resource count, and makes the version current. */
  private finalize(tx: DbOrTx, version: Pick<StateVersionRow, 'id' | 'workspaceId' | 'sequence'>, state: Buffer): void {
    const parsed = parseState(state, '/');
    repo.updateStateVersion(tx, version.id, {
      status: 'finalized',
      state,
      uploadSecret: null,
      resourceCount: parsed.resourceCount,
      terraformVersion: parsed.terraformVersion,
      stateFormatVersion: parsed.formatVersion,
      size: state.length,
    });
    const outputs: StateVersionOutputRow[] = parsed.outputs.map((output, position) => ({
      id: newId('wsout'),
      stateVersionId: version.id,
      position,
      name: output.name,
      sensitive: output.sensitive,
      detailedType: output.detailedType,
      value: output.value,
    }));
    repo.insertOutputs(tx, outputs);
    // Uploads may finish out of order; an older version finalized late does not displace a newer current one.
    const currentId = workspacesRepo.findWorkspace(tx, version.workspaceId)?.currentStateVersionId;
    const current = currentId ? repo.findStateVersion(tx, currentId) : undefined;
    if (current && current.sequence > version.sequence) return;
    const at = this.clock.now();
    workspacesRepo.updateWorkspace(tx, version.workspaceId, {
      currentStateVersionId: version.id,
      resourceCount: parsed.resourceCount,
      updatedAt: at,
      latestChangeAt: at,
    });
  }

  /**
   * An upload through a link: the secret must be the version's and unused. The raw state must
   * match the md5 given at creation (a mismatch is refused and the link stays usable); the JSON
   * state is stored as it comes. A used link stops working.
   */
  upload(stateVersionId: string, kind: StateKind, secret: string, body: Buffer): void {
    const version = repo.findStateVersion(this.db, stateVersionId);
    const expected = kind === 'state' ? version?.uploadSecret : version?.jsonUploadSecret;
    if (!version || !expected || !safeEqual(sha256Hex(secret), expected)) throw notFound('the upload link is unknown or was already used');
    if (kind === 'json') {
      parseState(body, '/');
      repo.updateStateVersion(this.db, version.id, { jsonState: body, jsonUploadSecret: null });
      return;
    }
    if (md5Hex(body) !== version.md5) {
      throw unprocessable('the uploaded state does not match the md5 given when the state version was created');
    }
    // A file whose serial or lineage differ from the declared ones is accepted, as the real
    // service accepts it; the version keeps what was declared when it was created.
    parseState(body, '/');
    this.db.transaction((tx) => this.finalize(tx, version, body));
    this.backingDataChanged(version.workspaceId);
  }

  /** The raw state (or JSON state) a download link names; 404 once it no longer exists or its backing data is deleted. */
  download(stateVersionId: string, kind: StateKind): Buffer {
    const version = repo.findStateVersion(this.db, stateVersionId);
    const data = version && !backingDataDeleted(version.status) ? repo.stateData(this.db, stateVersionId, kind) : null;
    if (!data) throw notFound('the download link is unknown or has expired');
    return data;
  }

  /**
   * The backing-data actions (self-hosted edition). Soft delete hides a finalized version's state
   * (its downloads answer 404) but keeps it; restore brings it back; permanent delete drops the
   * bytes of a soft-deleted version for good. The workspace's current version is never soft
   * deleted. A move the statuses do not allow is a 409 "transition not allowed". Workspace admins only.
   */
  backingData(principal: Principal, id: string, action: BackingDataAction): void {
    const { version, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-update');
    const refuse = (why: string) => conflict(`state version ${version.id} ${why}`, { title: 'transition not allowed' });
    const { from, to } = backingDataMove(action, 'finalized');
    if (version.status !== from) throw refuse(`is ${version.status}, not ${from}`);
    if (action === 'soft_delete_backing_data' && located.workspace.currentStateVersionId === version.id) {
      throw refuse("is the workspace's current state version");
    }
    repo.updateStateVersion(
      this.db,
      version.id,
      action === 'permanently_delete_backing_data' ? { status: to, state: null, jsonState: null } : { status: to },
    );
    if (action === 'restore_backing_data') this.backingDataChanged(version.workspaceId);
  }

  /** A data retention policy's soft delete: a finalized version that is not its workspace's current one. */
  expireBackingData(id: string): void {
    const version = repo.findStateVersion(this.db, id);
    if (version?.status !== 'finalized') return;
    if (workspacesRepo.findWorkspace(this.db, version.workspaceId)?.currentStateVersionId === id) return;
    repo.updateStateVersion(this.db, id, { status: backingDataMove('soft_delete_backing_data', 'finalized').to });
  }

  /**
   * Rollback: a new version with the contents of an earlier finalized one of the same workspace
   * becomes current. Like any new version it needs the caller's lock.
   */
  rollback(located: Located, principal: Principal, targetId: string): StateVersionMeta {
    this.workspaces.require(located, 'can-create-state-versions');
    this.requireLockedByCaller(located, principal);
    const target = repo.findStateVersion(this.db, targetId);
    const state = target?.status === 'finalized' ? repo.stateData(this.db, targetId, 'state') : null;
    if (!target || target.workspaceId !== located.workspace.id || !state) {
      throw unprocessable(
        'rollback-state-version must be a finalized state version of this workspace',
        '/data/relationships/rollback-state-version/data/id',
      );
    }
    const { hasJsonState: _hasJsonState, ...columns } = target;
    const version: StateVersionRow = {
      ...columns,
      id: newId('sv'),
      status: 'pending',
      state: null,
      jsonState: repo.stateData(this.db, targetId, 'json'),
      uploadSecret: null,
      jsonUploadSecret: null,
      createdBy: lockerOf(principal),
      createdAt: this.clock.now(),
    };
    this.db.transaction((tx) => {
      version.sequence = repo.nextSequence(tx, located.workspace.id);
      repo.insertStateVersion(tx, version);
      this.finalize(tx, version, state);
    });
    this.backingDataChanged(version.workspaceId);
    const stored = repo.findStateVersion(this.db, version.id);
    if (!stored) throw NOT_FOUND;
    return stored;
  }

  /** An output by id: readable with the workspace's state; the value of a sensitive one included. */
  output(principal: Principal, id: string): StateVersionOutputRow {
    const output = repo.findOutput(this.db, id);
    if (!output) throw NOT_FOUND;
    this.locate(principal, output.stateVersionId);
    return output;
  }

  outputs(versionId: string): StateVersionOutputRow[] {
    return repo.outputsOf(this.db, [versionId]).get(versionId) ?? [];
  }
}
