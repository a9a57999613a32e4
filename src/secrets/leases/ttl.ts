/** The system default and maximum lease TTL (768h), used when a mount does not set its own. */
export const SYSTEM_DEFAULT_TTL_SECONDS = 768 * 3600;
export const SYSTEM_MAX_TTL_SECONDS = 768 * 3600;

/** A mount's effective TTLs: its own settings, else the system's. */
export interface EffectiveTtls {
  defaultTtl: number;
  maxTtl: number;
}

function positive(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

export function effectiveTtls(config: Record<string, unknown>): EffectiveTtls {
  const maxTtl = positive(config['max_lease_ttl']) || SYSTEM_MAX_TTL_SECONDS;
  const defaultTtl = Math.min(positive(config['default_lease_ttl']) || SYSTEM_DEFAULT_TTL_SECONDS, maxTtl);
  return { defaultTtl, maxTtl };
}

/** Seconds written as Go's time.Duration prints them (`1h0m0s`, `90s`, `0s`), as warnings quote them. */
export function goDuration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole === 0) return '0s';
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours > 0) return `${hours}h${minutes}m${rest}s`;
  if (minutes > 0) return `${minutes}m${rest}s`;
  return `${rest}s`;
}

/** The warning the real service adds when a requested TTL is cut down to the maximum. */
export function cappedTtlWarning(requestedSeconds: number, maxSeconds: number): string {
  return (
    `TTL of "${goDuration(requestedSeconds)}" exceeded the effective max_ttl of "${goDuration(maxSeconds)}"; ` +
    'TTL value is capped accordingly'
  );
}
