import type { OrganizationRow, Principal } from '../auth/principal.js';

/** What an include on organizations loads from: one page of them, and who asks. */
export interface OrganizationPage {
  principal: Principal;
  organizations: readonly OrganizationRow[];
}
