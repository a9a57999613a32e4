import { domainToASCII } from 'node:url';
import type { Role } from './role.js';

/** Shell-style glob where `*` matches any run of characters, dots included. */
export function globMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(value);
}

const LABEL = '([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const HOSTNAME = new RegExp(`^(\\*\\.)?(${LABEL}\\.)*${LABEL}\\.?$`);
const WILDCARD_LABEL = /^([a-zA-Z0-9-]*\*[a-zA-Z0-9-]*)$/;

/** A host name after IDNA conversion, or undefined when it is not one. */
export function asciiHostname(name: string): string | undefined {
  const converted = /^[\x00-\x7f]*$/.test(name) ? name : domainToASCII(name);
  return converted !== '' && HOSTNAME.test(converted) ? converted : undefined;
}

/**
 * The first name the role does not allow, or undefined when all pass. The order of checks is
 * the real service's: email split, wildcard reduction, host-name syntax (which applies even
 * with allow_any_name), then any-name, localhost, and the allowed domains.
 */
export function firstDisallowedName(role: Role, names: string[]): string | undefined {
  for (const name of names) {
    if (!nameAllowed(role, name)) return name;
  }
  return undefined;
}

function nameAllowed(role: Role, name: string): boolean {
  let reduced = name;
  let emailDomain = '';
  const isEmail = name.includes('@');
  if (isEmail) {
    const parts = name.split('@');
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return false;
    emailDomain = parts[1] as string;
    reduced = emailDomain;
  }
  let isWildcard = false;
  if (reduced.includes('*')) {
    if (isEmail || !role.allow_wildcard_certificates) return false;
    const labels = reduced.split('.');
    if ((reduced.match(/\*/g) ?? []).length > 1 || !(labels[0] as string).includes('*') || labels.length < 2) return false;
    if (!WILDCARD_LABEL.test(labels[0] as string)) return false;
    isWildcard = true;
    reduced = labels.slice(1).join('.');
  }
  if (role.enforce_hostnames && asciiHostname(reduced) === undefined) return false;
  if (role.allow_any_name) return true;

  if (role.allow_localhost && !isWildcard) {
    if (name === 'localhost' || name === 'localdomain' || (isEmail && (emailDomain === 'localhost' || emailDomain === 'localdomain')))
      return true;
    if (role.allow_subdomains && (reduced.endsWith('.localhost') || reduced.endsWith('.localdomain'))) return true;
  }

  for (const domain of role.allowed_domains) {
    if (domain === '') continue;
    const lower = domain.toLowerCase();
    if (role.allow_bare_domains && (name.toLowerCase() === lower || (isEmail && emailDomain.toLowerCase() === lower))) return true;
    if (role.allow_subdomains && (reduced.endsWith(`.${domain}`) || (isWildcard && reduced.toLowerCase() === lower))) return true;
    if (role.allow_glob_domains && domain.includes('*') && globMatch(domain, name)) return true;
  }
  return false;
}

/** `<oid>;UTF8:<value>` entries, by OID; the real service's parse errors otherwise. */
export function parseOtherSans(entries: string[]): Map<string, string[]> | string {
  const parsed = new Map<string, string[]>();
  for (const entry of entries) {
    const split = entry.indexOf(';');
    if (split === -1) return `could not parse requested other SAN: expected a semicolon in other SAN "${entry}"`;
    const oid = entry.slice(0, split);
    const rest = entry.slice(split + 1);
    const colon = rest.indexOf(':');
    if (colon === -1) return `could not parse requested other SAN: expected a colon in other SAN "${entry}"`;
    const type = rest.slice(0, colon).toUpperCase();
    if (type !== 'UTF8' && type !== 'UTF-8')
      return `could not parse requested other SAN: only UTF8 other SAN types are currently supported, got "${rest.slice(0, colon)}"`;
    if (!/^\d+(\.\d+)+$/.test(oid)) return `could not parse requested other SAN: invalid OID "${oid}"`;
    parsed.set(oid, [...(parsed.get(oid) ?? []), rest.slice(colon + 1)]);
  }
  return parsed;
}

/** The role's verdict on requested other SANs: the error text, or undefined when all are allowed. */
export function otherSansProblem(role: Role, requested: Map<string, string[]>): string | undefined {
  if (role.allowed_other_sans.length === 1 && role.allowed_other_sans[0] === '*') return undefined;
  const allowed = parseOtherSans(role.allowed_other_sans.filter((entry) => entry !== '*'));
  if (typeof allowed === 'string') return allowed;
  for (const [oid, values] of requested) {
    const patterns = allowed.get(oid);
    if (!patterns) return `other SAN OID ${oid} not allowed by this role`;
    for (const value of values) {
      if (!patterns.some((pattern) => globMatch(pattern, value))) return `other SAN ${value} not allowed for OID ${oid} by this role`;
    }
  }
  return undefined;
}
