import type { OrganizationRow } from '../auth/principal.js';
import { userResource } from '../users/resource.js';
import type { TeamView } from './resource.js';

/** What an include on teams loads from: the rendered teams and the scope they were read in. */
export interface TeamPage {
  scope: { organization: OrganizationRow };
  views: readonly TeamView[];
}

/** The users of the page's teams (`include=users`). */
export const teamUsersInclude = ({ views }: TeamPage) => views.flatMap((view) => view.users.map(userResource));
