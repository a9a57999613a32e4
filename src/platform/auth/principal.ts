import type { organizations, teams, users } from '../../store/tables.js';

export type UserRow = typeof users.$inferSelect;
export type TeamRow = typeof teams.$inferSelect;
export type OrganizationRow = typeof organizations.$inferSelect;

/** Who a bearer token speaks for. Every permission decision starts from one of these. */
export type Principal =
  | { kind: 'user'; tokenId: string; user: UserRow }
  | { kind: 'team'; tokenId: string; team: TeamRow }
  | { kind: 'organization'; tokenId: string; organization: OrganizationRow };

export function isSiteAdmin(principal: Principal): boolean {
  return principal.kind === 'user' && principal.user.isSiteAdmin;
}
