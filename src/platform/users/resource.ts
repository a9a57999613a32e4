import { createHash } from 'node:crypto';
import type { UserRow } from '../auth/principal.js';
import type { ResourceObject } from '../jsonapi/types.js';

/** A user's picture, from the address real clients expect (a Gravatar URL keyed by the email). */
function avatarUrl(email: string): string {
  const digest = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${digest}?s=100&d=mm`;
}

/**
 * The `users` resource. It depends on the row alone, so the same user serializes identically
 * wherever it appears (account details, `included` in membership invites, team includes, admin
 * lists) — real clients compare those objects field by field.
 *
 * `permissions` describe what the user may do to their own account. Organization creation is
 * reserved to site administrators in understudy, so `can-create-organizations` says so; service
 * accounts (team and organization tokens) can do none of it.
 */
export function userResource(user: UserRow): ResourceObject {
  const self = `/api/v2/users/${encodeURIComponent(user.id)}`;
  const person = !user.isServiceAccount;
  return {
    id: user.id,
    type: 'users',
    attributes: {
      username: user.username,
      email: user.email,
      'unconfirmed-email': null,
      'avatar-url': avatarUrl(user.email),
      'is-service-account': user.isServiceAccount,
      'two-factor': { enabled: false, verified: false },
      'v2-only': false,
      'is-site-admin': user.isSiteAdmin,
      'is-admin': user.isSiteAdmin,
      'is-suspended': user.isSuspended,
      'is-sso-login': false,
      'is-scim-managed': false,
      permissions: {
        'can-create-organizations': person && user.isSiteAdmin,
        'can-change-email': person,
        'can-change-username': person,
        'can-manage-user-tokens': person,
        'can-view2fa-settings': person,
        'can-manage-hcp-account': false,
      },
    },
    relationships: {
      'authentication-tokens': { links: { related: `${self}/authentication-tokens` } },
    },
    links: { self },
  };
}

/** An organization a listed user belongs to, as `include=organizations` on the admin user list adds it. */
export function memberOrganizationResource(organization: { name: string; email: string }): ResourceObject {
  return {
    id: organization.name,
    type: 'organizations',
    attributes: { name: organization.name, email: organization.email },
    links: { self: `/api/v2/organizations/${encodeURIComponent(organization.name)}` },
  };
}
