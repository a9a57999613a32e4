/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, AnyResource, crud, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `organizations` resource. */
export const ORGANIZATION = resourceSchema(
  'organizations',
  {
    'default-execution-mode': A.string(),
    'cost-estimation-enabled': A.boolean(),
    'collaborator-auth-policy': A.string(),
    'session-timeout': A.nullable(A.integer()),
    'session-remember': A.nullable(A.integer()),
    'assessments-enforced': A.boolean(),
    'allow-force-delete-workspaces': A.boolean(),
    'send-passing-statuses-for-untriggered-speculative-plans': A.boolean(),
    'aggregated-commit-status-enabled': A.boolean(),
    'speculative-plan-management-enabled': A.boolean(),
    name: A.string(),
    email: A.string(),
    'external-id': A.string(),
    'created-at': A.time(),
    'trial-expires-at': A.nullable(A.time()),
    'remaining-testable-count': A.integer(),
    permissions: A.flags(),
  },
  {
    relationships: [
      'authentication-token',
      'data-retention-policy',
      'default-agent-pool',
      'default-project',
      'entitlement-set',
      'oauth-tokens',
      'subscription',
    ],
  },
);

/** The `entitlement-sets` resource. */
export const ENTITLEMENT_SET = resourceSchema('entitlement-sets', {
  agents: A.boolean(),
  'audit-logging': A.boolean(),
  'configuration-designer': A.boolean(),
  'cost-estimation': A.boolean(),
  'global-run-tasks': A.boolean(),
  'module-tests-generation': A.boolean(),
  'no-code-modules': A.boolean(),
  operations: A.boolean(),
  'private-module-registry': A.boolean(),
  'private-run-tasks': A.boolean(),
  'run-tasks': A.boolean(),
  sentinel: A.boolean(),
  'state-storage': A.boolean(),
  teams: A.boolean(),
  'usage-reporting': A.boolean(),
  'user-limit': A.nullable(A.integer()),
  'vcs-integrations': A.boolean(),
  'self-serve-billing': A.boolean(),
  sso: A.boolean(),
  'waypoint-templates-and-addons': A.boolean(),
  'waypoint-actions': A.boolean(),
});

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const ORGANIZATIONS_RESPONSES: ResponseTable = {
  ...crud('/organizations', '/organizations/:name', ORGANIZATION),
  'GET /organizations/:name/entitlement-set': ok(single(ENTITLEMENT_SET)),
  'GET /organizations/:name/stacks': ok(paged(AnyResource, 'always empty: the emulator has no stacks')),
};
