import type { Clock } from '../../../core/clock.js';
import type { Dialect } from '../../../core/dialect.js';
import { spellKeys } from '../../../core/dialect.js';
import { ApiError, badRequest, notFound } from '../../../core/errors.js';
import { upstream500 } from '../../framework/errors.js';
import type { EarliestDue, Pending } from '../../../core/earliest-due.js';
import type { DueSource, RanWork, Scheduler } from '../../../core/scheduler.js';
import type { DbOrTx } from '../../../store/store.js';
import { dueInMounts, type MountEntry } from '../../framework/due-in-mounts.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { MountTable } from '../../mounts/mount-table.js';
import type { PasswordPolicyStore } from '../../passwords/policy-store.js';
import { MountStorage } from '../../storage/mount-storage.js';
import { driverError } from './connections.js';
import type { ConnectionPools } from './pools.js';
import { checkCredentialType, checkPolicyExists, connectionOf, CREDENTIAL_FIELDS, policyOf } from './roles.js';
import { keys, listing, readRole, readStaticRole, type StaticRoleEntry } from './store.js';

/** The real engine's floor for `rotation_period`, and its wait before retrying a failed rotation. */
const MIN_ROTATION_SECONDS = 5;
const RETRY_MS = 10_000;

const STATIC_FIELDS: Record<string, FieldSpec> = {
  ...CREDENTIAL_FIELDS,
  username: { type: 'string', description: 'The existing database user.' },
  rotation_period: { type: 'duration', description: 'How often the password is rotated (at least 5s).' },
  rotation_statements: { type: 'stringSlice', description: 'Statements that set the password.', default: [] },
};

const nameOf = (request: HandlerRequest) => request.params['name'] ?? '';

/** When a role's next rotation (or retry) falls due, epoch ms. */
const dueAt = (role: StaticRoleEntry) => role.retry_at ?? role.last_rotation + role.rotation_period * 1000;

export interface StaticRoleDependencies {
  db: DbOrTx;
  pools: ConnectionPools;
  passwords: PasswordPolicyStore;
  clock: Clock;
  scheduler: Scheduler;
  mounts: MountTable;
  dialect: Dialect;
  /** The engine type whose mounts hold static roles. */
  engineType: string;
}

/**
 * Static roles and their rotations. Rotation state lives with the role in mount storage; the
 * earliest due rotation is cached by `dueInMounts` (dropped on every write and on reset) so the
 * scheduler's frequent `next()` calls stay cheap.
 */
export class StaticRoles {
  private readonly source: EarliestDue<MountEntry>;

  constructor(private readonly deps: StaticRoleDependencies) {
    this.source = dueInMounts({
      name: 'database-static-roles',
      db: deps.db,
      scheduler: deps.scheduler,
      mounts: () => deps.mounts.ofType(deps.engineType),
      dueTimes: function* (storage) {
        for (const name of listing(storage, 'static-role/')) {
          const role = readStaticRole(storage, name);
          if (role) yield { name, at: dueAt(role) };
        }
      },
      run: (pending, storage) => this.runDue(pending, storage),
      onReset: () => void deps.pools.closeAll(),
    });
  }

  private changed(): void {
    this.source.changed();
  }

  /** Sets a new password in the database, then records it; a failure keeps the old one and schedules a retry. */
  async rotate(storage: MountStorage, mountUuid: string, name: string): Promise<void> {
    const role = readStaticRole(storage, name);
    if (!role) throw badRequest('no static role found for role name');
    let password: string;
    try {
      const config = connectionOf(storage, role.db_name);
      password = this.deps.passwords.generate(policyOf(role.credential_config, config));
      const plugin = await this.deps.pools.get(mountUuid, role.db_name, config);
      await plugin.changePassword({ statements: role.rotation_statements, username: role.username, password });
    } catch (error) {
      // Whatever failed (database, a deleted connection or policy), the retry is scheduled, so the
      // scheduler never spins on an item that stays due.
      const current = readStaticRole(storage, name);
      if (current) storage.put(keys.staticRole(name), { ...current, retry_at: this.deps.clock.nowMs() + RETRY_MS });
      this.changed();
      throw error instanceof ApiError ? error : upstream500(driverError('failed to rotate credentials: ', error));
    }
    const current = readStaticRole(storage, name) ?? role;
    const { retry_at: _done, ...rest } = current;
    storage.put(keys.staticRole(name), { ...rest, password, last_rotation: this.deps.clock.nowMs() });
    this.changed();
  }

  dueSource(): DueSource {
    return this.source;
  }

  private async runDue({ at, item }: Pending<MountEntry>, storage: MountStorage): Promise<RanWork> {
    const work = { at: new Date(at).toISOString(), kind: 'static-role-rotation', subject: item.name };
    const role = readStaticRole(storage, item.name);
    if (!role || dueAt(role) > this.deps.clock.nowMs()) {
      return { ...work, outcome: 'done', detail: role ? 'no longer due' : 'role gone' };
    }
    try {
      await this.rotate(storage, item.mountUuid, item.name);
      return { ...work, outcome: 'done', detail: 'rotated' };
    } catch (error) {
      return { ...work, outcome: 'failed', detail: `${(error as Error).message}; retrying in ${RETRY_MS / 1000}s` };
    }
  }

  private async write(request: HandlerRequest): Promise<LogicalResponse | undefined> {
    const { fields, storage } = request;
    const name = nameOf(request);
    if (readRole(storage, name)) throw badRequest('Role and Static Role names must be unique');
    const existing = request.operation === 'create' ? undefined : readStaticRole(storage, name);
    const dbName = fields.has('db_name') ? fields.get<string>('db_name') : (existing?.db_name ?? '');
    if (dbName === '') throw badRequest('database name is a required field');
    const username = fields.has('username') ? fields.get<string>('username') : (existing?.username ?? '');
    if (username === '') throw badRequest('username is a required field to create a static account');
    if (existing && username !== existing.username) throw badRequest('cannot update static account username');
    if (!fields.has('rotation_period') && !existing) throw badRequest('rotation_period is required to create static accounts');
    const period = fields.has('rotation_period') ? fields.get<number>('rotation_period') : (existing?.rotation_period ?? 0);
    if (period < MIN_ROTATION_SECONDS) throw badRequest(`rotation_period must be ${MIN_ROTATION_SECONDS} seconds or more`);
    const settings = {
      db_name: dbName,
      username,
      rotation_period: period,
      rotation_statements: fields.has('rotation_statements')
        ? fields.get<string[]>('rotation_statements')
        : (existing?.rotation_statements ?? []),
      credential_type: fields.has('credential_type') ? fields.get<string>('credential_type') : (existing?.credential_type ?? 'password'),
      credential_config: fields.has('credential_config')
        ? fields.get<Record<string, string>>('credential_config')
        : (existing?.credential_config ?? {}),
    };
    const config = connectionOf(storage, dbName);
    checkCredentialType(settings.credential_type, config);
    checkPolicyExists(this.deps.passwords, settings.credential_config);

    if (existing) {
      // A new period reschedules from the last rotation; it does not rotate.
      storage.put(keys.staticRole(name), { ...existing, ...settings });
      this.changed();
      return undefined;
    }
    // Creating rotates at once: the database first, and the role is stored only when that worked.
    const password = this.deps.passwords.generate(policyOf(settings.credential_config, config));
    try {
      const plugin = await this.deps.pools.get(request.mount.uuid, dbName, config);
      await plugin.changePassword({ statements: settings.rotation_statements, username, password });
    } catch (error) {
      throw upstream500(driverError('failed to rotate credentials: ', error));
    }
    storage.put(keys.staticRole(name), { ...settings, password, last_rotation: this.deps.clock.nowMs() } satisfies StaticRoleEntry);
    this.changed();
    return undefined;
  }

  private view(role: StaticRoleEntry): Record<string, unknown> {
    return spellKeys<unknown>(
      {
        db_name: role.db_name,
        username: role.username,
        rotation_period: role.rotation_period,
        rotation_statements: role.rotation_statements,
        credential_type: role.credential_type,
        last_store_rotation: new Date(role.last_rotation).toISOString(),
        ...(Object.keys(role.credential_config).length > 0 ? { credential_config: role.credential_config } : {}),
      },
      this.deps.dialect,
    );
  }

  paths(): PathSpec[] {
    const found = (request: HandlerRequest) => {
      const role = readStaticRole(request.storage, nameOf(request));
      if (!role) throw notFound();
      return role;
    };
    return [
      {
        pattern: 'static-roles',
        summary: 'Names of the static roles.',
        operations: {
          list: (request) => {
            const names = listing(request.storage, 'static-role/');
            if (names.length === 0) throw notFound();
            return { data: { keys: names } };
          },
        },
      },
      {
        pattern: 'static-roles/:name',
        summary: 'Create (rotating the password at once), read, update or delete a static role; deleting leaves the user in place.',
        fields: STATIC_FIELDS,
        existenceCheck: (request) => readStaticRole(request.storage, nameOf(request)) !== undefined,
        operations: {
          create: (request) => this.write(request),
          update: (request) => this.write(request),
          read: (request) => ({ data: this.view(found(request)) }),
          delete: (request) => {
            request.storage.delete(keys.staticRole(nameOf(request)));
            this.changed();
            return undefined;
          },
        },
      },
      {
        pattern: 'static-creds/:name',
        summary: "The static role's current password and when it next rotates.",
        operations: {
          read: (request) => {
            const role = readStaticRole(request.storage, nameOf(request));
            if (!role) throw badRequest(`unknown role: ${nameOf(request)}`);
            const ttl = Math.max(0, Math.floor((role.last_rotation + role.rotation_period * 1000 - this.deps.clock.nowMs()) / 1000));
            const data = {
              username: role.username,
              password: role.password,
              last_store_rotation: new Date(role.last_rotation).toISOString(),
              rotation_period: role.rotation_period,
              ttl,
            };
            return { data: spellKeys<unknown>(data, this.deps.dialect) };
          },
        },
      },
      {
        pattern: 'rotate-role/:name',
        summary: "Rotate the static role's password now; the next rotation is a full period away.",
        operations: {
          update: async (request) => {
            await this.rotate(request.storage, request.mount.uuid, nameOf(request));
            return undefined;
          },
        },
      },
    ];
  }
}
