import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../core/clock.js';
import { ApiError, badRequest } from '../../core/errors.js';
import { storeGeneration } from '../../store/generation.js';
import { sqliteOf, type Db } from '../../store/store.js';
import type { LogicalResponse, MountInfo, Operation } from '../framework/types.js';
import type { LogicalRequest } from '../router.js';
import type { TokenEntry } from '../tokens/token-store.js';
import { AuditDeviceTable, devicePath, fileDeviceSettings, type AuditDevice, type FileDeviceSettings } from './devices.js';
import {
  flat,
  mountMembers,
  rememberedCallerAuth,
  rememberedRequestMember,
  responseMember,
  type Hashers,
  type RequestFacts,
} from './entries.js';
import { FileSink, openErrorText } from './file-sink.js';
import { hashedJson, identifiedHmac, rawExceptTokens, rememberedHmac, rememberedJson } from './hash.js';
import { RecordTimes } from './record-times.js';
import { checkDeviceMode, checkNotStoreFile } from './target-check.js';

/** An enabled device ready to write: its settings, its open file and its hashers. */
interface ActiveDevice {
  device: AuditDevice;
  settings: FileDeviceSettings;
  sink: FileSink;
  hash: Hashers;
  /** The `auth` member of this device's records for a caller, remembered while the token is unchanged. */
  callerAuth: (token: TokenEntry | null) => string;
  /** The `request` member of this device's records, its members after the id remembered while they are unchanged. */
  requestMember: (facts: RequestFacts, mount: string) => string;
}

/**
 * The mount members of records as JSON text, remembered for the last mount: consecutive requests
 * mostly reach the same one. Compared by the fields the text shows, not by the object.
 */
class MountTexts {
  private last: { mount: MountInfo; text: string } | undefined;

  of(mount: MountInfo | undefined): string {
    if (mount === undefined) return '';
    const last = this.last;
    if (last !== undefined && last.mount.path === mount.path && last.mount.type === mount.type && last.mount.accessor === mount.accessor)
      return last.text;
    const text = flat(mountMembers(mount));
    this.last = { mount: { ...mount, config: {} }, text };
    return text;
  }
}

/** The `auth` and `request` members of both records as JSON text, built once per device. */
type Preamble = string;

/** Paths the real service answers outside its request pipeline, so it never audits them. */
const UNAUDITED = new Set(['sys/health', 'sys/init', 'sys/seal-status', 'sys/leader']);

/**
 * Audit devices (`sys/audit`): which are enabled (from the store, on every request, so a reset or
 * a restart is seen at once), their open files, and the records of each request. The router asks
 * for a {@link AuditTrail} per request; when no device is enabled it gets none and pays nothing else.
 */
export class AuditBroker {
  readonly table: AuditDeviceTable;
  /** By salt: a device enabled again at the same path is a new device with a new salt. */
  private readonly active = new Map<string, ActiveDevice>();
  /** The devices activated from the table when last read, and the store's generation then. */
  private lastTable: { generation: number; devices: readonly ActiveDevice[] } | undefined;
  /** The store's connection: its generation says when its whole content was replaced. */
  private readonly connection: object;
  /** The store's database file (`:memory:` for none): a device may not write into it. */
  private readonly storeFile: string;
  private readonly times: RecordTimes;
  private readonly mountTexts = new MountTexts();

  constructor(
    db: Db,
    clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {
    this.times = new RecordTimes(clock);
    this.table = new AuditDeviceTable(db);
    this.connection = sqliteOf(db);
    this.storeFile = sqliteOf(db).name;
  }

  private activate(device: AuditDevice): ActiveDevice {
    let active = this.active.get(device.salt);
    if (!active) {
      const settings = fileDeviceSettings(device.options);
      const hmac = rememberedHmac((value: string) => identifiedHmac(device.salt, value));
      const json = rememberedJson();
      const hash: Hashers = {
        // Tokens are HMAC'd even with log_raw: this server never writes a token in clear.
        token: hmac,
        accessor: settings.hmacAccessor ? hmac : (value) => value,
        data: settings.logRaw ? (value, tokens) => rawExceptTokens(value, hmac, tokens) : (value) => hashedJson(value, hmac, '', json),
      };
      active = {
        device,
        settings,
        sink: new FileSink({ filePath: settings.filePath, mode: settings.mode }, this.log, device.path),
        hash,
        callerAuth: rememberedCallerAuth(hash),
        requestMember: rememberedRequestMember(hash),
      };
      this.active.set(device.salt, active);
    }
    return active;
  }

  /** The record keeper of one request, or undefined when nothing is to be recorded. */
  trail(request: LogicalRequest): AuditTrail | undefined {
    const { path } = request;
    if (UNAUDITED.has(path.endsWith('/') ? path.replace(/\/+$/, '') : path)) return undefined;
    const devices = this.enabled();
    if (devices.length === 0) return undefined;
    return new AuditTrail(devices, request, this.times, this.mountTexts);
  }

  /**
   * The enabled devices, ready to write. The table is read again only after this broker changed it
   * (enable, disable) or the store's content was replaced (a reset, a snapshot restore); nothing
   * else writes it, and a restart starts with nothing remembered.
   */
  private enabled(): readonly ActiveDevice[] {
    const generation = storeGeneration(this.connection);
    if (this.lastTable === undefined || this.lastTable.generation !== generation) {
      this.lastTable = { generation, devices: this.table.all().map((device) => this.activate(device)) };
    }
    return this.lastTable.devices;
  }

  enable(input: { path: string; type: string; description: string; options: Record<string, string>; local: boolean }): void {
    // Read again on the next request, whether the device was stored or its check refused it.
    this.lastTable = undefined;
    this.table.add(input, (device) => {
      const settings = fileDeviceSettings(device.options);
      const modeText = device.options['mode'];
      checkDeviceMode(modeText, modeText === undefined ? 0 : Number.parseInt(modeText, 8));
      checkNotStoreFile(settings.filePath, this.storeFile);
      const sink = new FileSink({ filePath: settings.filePath, mode: settings.mode }, this.log, device.path);
      try {
        sink.check();
      } catch (error) {
        const reason = openErrorText(settings.filePath, error);
        throw badRequest(`sanity check failed; unable to open ${JSON.stringify(settings.filePath)} for writing: ${reason}`);
      } finally {
        sink.close();
      }
    });
  }

  disable(path: string): void {
    const device = this.table.get(path);
    if (!device || !this.table.remove(path)) return;
    this.active.get(device.salt)?.sink.retire();
    this.active.delete(device.salt);
    this.lastTable = undefined;
  }

  /** `sys/audit-hash`: what a device would write for `input`. */
  hash(path: string, input: string): string {
    const device = this.table.get(path);
    if (!device) throw badRequest(`unknown audit backend ${devicePath(path)}`);
    return this.activate(device).hash.token(input);
  }

  close(): void {
    for (const active of this.active.values()) active.sink.close();
    this.active.clear();
    this.lastTable = undefined;
  }
}

/** The error text a record carries: the messages the client got, or the detail when there are none. */
function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.options.messages?.join('\n') ?? error.detail;
  return 'internal error';
}

/**
 * One request's two records: the request (before its handler runs, once the caller and the
 * operation are known) and the response (or the error) after. Each enabled device gets its own
 * copy, hashed with its own salt.
 */
export class AuditTrail {
  private readonly facts: RequestFacts;
  private logged = false;
  /** Per device (same order): the caller and the request as that device hashes them. */
  private preambles: Preamble[] = [];

  constructor(
    private readonly devices: readonly ActiveDevice[],
    request: LogicalRequest,
    private readonly times: RecordTimes,
    private readonly mountTexts: MountTexts,
  ) {
    this.facts = {
      id: randomUUID(),
      operation: request.operation === 'write' ? 'update' : request.operation,
      path: request.path,
      data: request.data,
      clientToken: request.clientToken,
      token: null,
      mount: undefined,
      remoteAddress: request.clientAddress,
    };
  }

  /** The caller's token and the mount the request reached, as soon as the router knows them. */
  identify(token: TokenEntry | null, mount: MountInfo | undefined): void {
    this.facts.token = token;
    this.facts.mount = mount;
  }

  /** Writes the request record (once), with the operation the router decided on. */
  request(operation: Operation): void {
    if (this.logged) return;
    this.facts.operation = operation;
    this.logged = true;
    const mount = this.mountMembers();
    this.preambles = this.devices.map(({ callerAuth, requestMember }) =>
      flat(`"auth":${callerAuth(this.facts.token)},"request":${requestMember(this.facts, mount)}`),
    );
    this.write(() => '');
  }

  response(response: LogicalResponse | undefined): void {
    this.finish(response, undefined);
  }

  failure(error: unknown): void {
    this.finish(undefined, errorText(error));
  }

  private finish(response: LogicalResponse | undefined, error: string | undefined): void {
    if (!this.logged) this.request(this.facts.operation);
    const mount = this.mountMembers();
    this.write(
      (hash) => `,"response":${responseMember(response, this.facts, mount, hash)}${error ? `,"error":${JSON.stringify(error)}` : ''}`,
      'response',
    );
  }

  /** The mount members of both records, the same for every device (the mount may change between them). */
  private mountMembers(): string {
    return this.mountTexts.of(this.facts.mount);
  }

  /**
   * One record per device, in the real member order (time, type, auth, request, then `rest`):
   * written as text so the members both records share are serialised once.
   */
  private write(rest: (hash: Hashers) => string, type: 'request' | 'response' = 'request'): void {
    const head = `{"time":${this.times.now()},"type":"${type}",`;
    this.devices.forEach(({ settings, sink, hash }, index) => {
      const line = `${settings.prefix}${head}${this.preambles[index] ?? ''}${rest(hash)}}\n`;
      // The request record goes to the file with the response record: one write per request.
      if (type === 'request') sink.hold(line);
      else sink.write(line);
    });
  }
}
