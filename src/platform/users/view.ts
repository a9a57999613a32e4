import { IncludeRegistry, type Included } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { UserRow } from '../auth/principal.js';
import type { UserOrganization } from './repo.js';
import { memberOrganizationResource, userResource } from './resource.js';

/** A user shown on its own (`/users/:id`, the account) offers no include; asking for one is the 400 clients match on. */
export const userIncludes = new IncludeRegistry<unknown>({});

/** What the site administrator's user list can include: the organizations the page's users belong to, loaded once. */
export const adminUserIncludes = new IncludeRegistry<{ organizations: ReadonlyMap<string, UserOrganization[]> }>({
  organizations: ({ organizations }) => [...organizations.values()].flat().map(memberOrganizationResource),
});

/** The site administrator's page of users, each with its `organizations` relationship, and what `wanted` includes. */
export function adminUserView(
  rows: readonly UserRow[],
  organizations: ReadonlyMap<string, UserOrganization[]>,
  wanted: ReadonlySet<string>,
): { items: ResourceObject[]; included: Included } {
  const items = rows.map((row) => {
    const resource = userResource(row);
    const mine = organizations.get(row.id) ?? [];
    resource.relationships = {
      ...resource.relationships,
      organizations: { data: mine.map(({ name }) => ({ id: name, type: 'organizations' })) },
    };
    return resource;
  });
  return { items, included: adminUserIncludes.collect(wanted, { organizations }) };
}
