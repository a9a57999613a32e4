/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, created, noContent, Nullable, ok, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';
import { RETENTION_POLICY_TYPES } from '../retention-policy.js';

/** A policy that deletes runs, state and logs older than a number of days. */
export const RETENTION_POLICY_DELETE_OLDER = resourceSchema(RETENTION_POLICY_TYPES['delete-older'], {
  'delete-older-than-n-days': A.integer(),
});

/** A policy that keeps everything (overrides an organization's policy for one workspace). */
export const RETENTION_POLICY_DONT_DELETE = resourceSchema(RETENTION_POLICY_TYPES['dont-delete'], {});

/** Either kind: the relationship is polymorphic, the type names the kind. */
export const RETENTION_POLICY = Type.Union([RETENTION_POLICY_DELETE_OLDER, RETENTION_POLICY_DONT_DELETE]);

const organizationPath = '/organizations/:org/relationships/data-retention-policy';
const workspacePath = '/workspaces/:id/relationships/data-retention-policy';

/** What each of this domain's routes answers, keyed as registered under /api/v2 (self-hosted edition only). */
export const DATA_RETENTION_RESPONSES: ResponseTable = Object.fromEntries(
  [organizationPath, workspacePath].flatMap((path) => [
    [`GET ${path}`, ok(single(Nullable(RETENTION_POLICY), 'the policy, or `data: null` when none is set here'))],
    [`POST ${path}`, created(single(RETENTION_POLICY))],
    [`DELETE ${path}`, noContent],
  ]),
);
