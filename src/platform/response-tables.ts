import { crud, noContent, ok, paged, type ResponseTable, single } from './jsonapi/responses.js';
import { ADMIN_SETTINGS_RESPONSES } from './admin-settings/schemas.js';
import { AUDIT_CONFIGURATION_RESPONSES } from './audit-configuration/schemas.js';
import { AUDIT_TRAIL_RESPONSES } from './audit-trail/schemas.js';
import { AGENT_POOLS_RESPONSES } from './agent-pools/schemas.js';
import { AGENTS_RESPONSES } from './agents/schemas.js';
import { CONFIGURATION_VERSIONS_RESPONSES } from './configuration-versions/schemas.js';
import { DATA_RETENTION_RESPONSES } from './data-retention/schemas.js';
import { MEMBERSHIPS_RESPONSES } from './memberships/schemas.js';
import { META_RESPONSES } from './meta/schemas.js';
import { NOTIFICATIONS_RESPONSES } from './notifications/schemas.js';
import { OAUTH_CLIENTS_RESPONSES } from './oauth-clients/schemas.js';
import { ORGANIZATIONS_RESPONSES } from './organizations/schemas.js';
import { POLICIES_RESPONSES } from './policies/schemas.js';
import { PROJECTS_RESPONSES } from './projects/schemas.js';
import { QUERIES_RESPONSES } from './queries/schemas.js';
import { REGISTRY_RESPONSES } from './registry/schemas.js';
import { REGISTRY_PROVIDERS_RESPONSES } from './registry-providers/schemas.js';
import { RESERVED_TAG_KEYS_RESPONSES } from './reserved-tag-keys/schemas.js';
import { RUN_TASKS_RESPONSES, WORKSPACE_TASK } from './run-tasks/schemas.js';
import { RUNS_RESPONSES } from './runs/schemas.js';
import { SITE_ADMIN_RESPONSES } from './site-admin/schemas.js';
import { SSH_KEYS_RESPONSES } from './ssh-keys/schemas.js';
import { STATE_VERSIONS_RESPONSES } from './state-versions/schemas.js';
import { SUBSCRIPTIONS_RESPONSES } from './subscriptions/schemas.js';
import { TAG_BINDINGS_RESPONSES } from './tag-bindings/schemas.js';
import { TAGS_RESPONSES } from './tags/schemas.js';
import { TASK_STAGES_RESPONSES } from './task-stages/schemas.js';
import { TEAM_ACCESS_RESPONSES } from './team-access/schemas.js';
import { TEAM_PROJECTS_RESPONSES } from './team-projects/schemas.js';
import { TEAMS_RESPONSES } from './teams/schemas.js';
import { TOKENS_RESPONSES } from './tokens/schemas.js';
import { TOOL_VERSIONS_RESPONSES } from './tool-versions/schemas.js';
import { USERS_RESPONSES, USER } from './users/schemas.js';
import { VARIABLE_SETS_RESPONSES } from './variable-sets/schemas.js';
import { VARIABLES_RESPONSES } from './variables/schemas.js';
import { WORKSPACES_RESPONSES, WORKSPACE } from './workspaces/schemas.js';

/**
 * Every `/api/v2` route's declared answer: each domain's table (`<domain>/schemas.ts`), and here
 * the routes whose resource another domain renders (domains do not import each other; this module,
 * like services.ts, is outside them). `platformPlugin` hands it to `declareResponses`.
 */
const ACROSS_DOMAINS: ResponseTable = {
  // remote-state: the consumers are workspaces.
  'GET /workspaces/:id/relationships/remote-state-consumers': ok(paged(WORKSPACE)),
  'PATCH /workspaces/:id/relationships/remote-state-consumers': noContent,
  'POST /workspaces/:id/relationships/remote-state-consumers': noContent,
  'DELETE /workspaces/:id/relationships/remote-state-consumers': noContent,
  // workspace-tasks: rendered by run-tasks.
  ...crud('/workspaces/:workspaceId/tasks', '/workspaces/:workspaceId/tasks/:id', WORKSPACE_TASK),
  // site-admin: the user actions answer the user.
  ...Object.fromEntries(
    ['suspend', 'unsuspend', 'grant_admin', 'revoke_admin', 'disable_two_factor'].map((action) => [
      `POST /admin/users/:id/actions/${action}`,
      ok(single(USER)),
    ]),
  ),
};

export const PLATFORM_RESPONSES: ResponseTable = {
  ...ADMIN_SETTINGS_RESPONSES,
  ...AGENT_POOLS_RESPONSES,
  ...AUDIT_CONFIGURATION_RESPONSES,
  ...AUDIT_TRAIL_RESPONSES,
  ...AGENTS_RESPONSES,
  ...CONFIGURATION_VERSIONS_RESPONSES,
  ...DATA_RETENTION_RESPONSES,
  ...MEMBERSHIPS_RESPONSES,
  ...META_RESPONSES,
  ...NOTIFICATIONS_RESPONSES,
  ...OAUTH_CLIENTS_RESPONSES,
  ...ORGANIZATIONS_RESPONSES,
  ...POLICIES_RESPONSES,
  ...PROJECTS_RESPONSES,
  ...QUERIES_RESPONSES,
  ...REGISTRY_RESPONSES,
  ...REGISTRY_PROVIDERS_RESPONSES,
  ...RESERVED_TAG_KEYS_RESPONSES,
  ...RUN_TASKS_RESPONSES,
  ...RUNS_RESPONSES,
  ...SITE_ADMIN_RESPONSES,
  ...SSH_KEYS_RESPONSES,
  ...STATE_VERSIONS_RESPONSES,
  ...SUBSCRIPTIONS_RESPONSES,
  ...TAG_BINDINGS_RESPONSES,
  ...TAGS_RESPONSES,
  ...TASK_STAGES_RESPONSES,
  ...TEAM_ACCESS_RESPONSES,
  ...TEAM_PROJECTS_RESPONSES,
  ...TEAMS_RESPONSES,
  ...TOKENS_RESPONSES,
  ...TOOL_VERSIONS_RESPONSES,
  ...USERS_RESPONSES,
  ...VARIABLE_SETS_RESPONSES,
  ...VARIABLES_RESPONSES,
  ...WORKSPACES_RESPONSES,
  ...ACROSS_DOMAINS,
};
