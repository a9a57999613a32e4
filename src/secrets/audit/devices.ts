import { badRequest } from '../../core/errors.js';
import { uuid } from '../../core/ids.js';
import type { DbOrTx } from '../../store/store.js';
import { parseBool } from '../framework/fields.js';
import { MountStorage } from '../storage/mount-storage.js';
import { safeMode } from './target-check.js';

/** An enabled audit device as stored (the salt never leaves the server). */
export interface AuditDevice {
  /** `file/`, always with its trailing slash. */
  path: string;
  type: string;
  description: string;
  /** As given (strings), shown back by `sys/audit`. */
  options: Record<string, string>;
  local: boolean;
  /** The per-device HMAC key every hashed value is computed with. */
  salt: string;
}

/** A device's options, read once when it is enabled. */
export interface FileDeviceSettings {
  filePath: string;
  mode: number;
  logRaw: boolean;
  hmacAccessor: boolean;
  prefix: string;
}

/** The audit table lives in the system backend's storage, as the mount tables do in the real service. */
const SYSTEM_STORAGE = 'builtin-system';
const TABLE_KEY = 'audit/devices';

/** Go's strconv.ParseBool, with its error text. */
function boolOption(options: Record<string, string>, name: string, fallback: boolean): boolean {
  const raw = options[name];
  if (raw === undefined) return fallback;
  const value = parseBool(raw);
  if (value === undefined) throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
  return value;
}

/** The `file` device's options, validated with the real device's texts. */
export function fileDeviceSettings(options: Record<string, string>): FileDeviceSettings {
  let filePath = options['file_path'] ?? options['path'];
  if (filePath === undefined || filePath === '') throw badRequest('file_path is required');
  if (['stdout', 'discard'].includes(filePath.toLowerCase())) filePath = filePath.toLowerCase();
  const format = options['format'] ?? 'json';
  if (format === 'jsonx') throw badRequest('format "jsonx" is not supported by understudy; use "json"');
  if (format !== 'json') throw badRequest(`unknown format type ${JSON.stringify(format)}`);
  const modeText = options['mode'] ?? '0600';
  if (!/^[0-7]{1,4}$/.test(modeText)) throw badRequest(`strconv.ParseUint: parsing ${JSON.stringify(modeText)}: invalid syntax`);
  return {
    filePath,
    // Mode 0 keeps whatever mode an existing file has; a new file still gets the default.
    mode: safeMode(Number.parseInt(modeText, 8) || 0o600),
    logRaw: boolOption(options, 'log_raw', false),
    hmacAccessor: boolOption(options, 'hmac_accessor', true),
    prefix: options['prefix'] ?? '',
  };
}

/** `a/b` → `a/b/`; the real service keys devices by their path with a trailing slash. */
export const devicePath = (path: string): string => `${path.replace(/^\/+|\/+$/g, '')}/`;

/** The stored table of audit devices; read on every request, so what the store holds is what logs. */
export class AuditDeviceTable {
  private readonly storage: MountStorage;

  constructor(db: DbOrTx) {
    this.storage = new MountStorage(db, SYSTEM_STORAGE);
  }

  all(): AuditDevice[] {
    return this.storage.get<AuditDevice[]>(TABLE_KEY) ?? [];
  }

  get(path: string): AuditDevice | undefined {
    return this.all().find((device) => device.path === devicePath(path));
  }

  /** Validates and stores a new device; `check` runs before it is stored (opening its file). */
  add(input: Omit<AuditDevice, 'salt' | 'path'> & { path: string }, check: (device: AuditDevice) => void): AuditDevice {
    const path = devicePath(input.path);
    if (path === '/') throw badRequest('backend path must be specified');
    const devices = this.all();
    if (devices.some((device) => device.path.startsWith(path) || path.startsWith(device.path))) throw badRequest('path already in use');
    if (input.type !== 'file') throw badRequest(`unknown backend type: ${JSON.stringify(input.type)}`);
    const device: AuditDevice = { ...input, path, salt: uuid() };
    check(device);
    this.storage.put(TABLE_KEY, [...devices, device]);
    return device;
  }

  /** Removes a device; false when there was none at `path`. */
  remove(path: string): boolean {
    const devices = this.all();
    const kept = devices.filter((device) => device.path !== devicePath(path));
    if (kept.length === devices.length) return false;
    this.storage.put(TABLE_KEY, kept);
    return true;
  }
}
