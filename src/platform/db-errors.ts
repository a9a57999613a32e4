import type { ApiError } from '../core/errors.js';

/** SQLite's refusal of a row that breaks a unique index (drizzle may wrap it in its own error). */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  }
  return false;
}

/**
 * SQLite's refusal of a row that names a row which is gone: with the API's own checks in front,
 * only a reset or restore between a request's checks and its write gets here (the principal or
 * the organization it looked up was replaced meanwhile).
 */
export function isForeignKeyViolation(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true;
  }
  return false;
}

/**
 * The one place a database error becomes an API error: a write that breaks a unique index is the
 * caller's mistake (`refusal`, in the API's own words), never a server fault; anything else is rethrown.
 */
export function refusingDuplicates<T>(write: () => T, refusal: () => ApiError): T {
  try {
    return write();
  } catch (error) {
    if (isUniqueViolation(error)) throw refusal();
    throw error;
  }
}
