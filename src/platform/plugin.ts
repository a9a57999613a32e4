import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { registerPlatformConventions } from './conventions.js';
import { auditWrites } from './audit-trail/route-hooks.js';
import { declareResponses } from './jsonapi/responses.js';
import { PLATFORM_RESPONSES } from './response-tables.js';
import type { PlatformContext } from './context.js';
import { metaRoutes, versionHeaders } from './meta/routes.js';
import { organizationRoutes } from './organizations/routes.js';
import { teamRoutes } from './teams/routes.js';
import { tokenRoutes } from './tokens/routes.js';
import { userRoutes } from './users/routes.js';
import { agentPoolRoutes } from './agent-pools/routes.js';
import { agentRoutes } from './agents/routes.js';
import { adminRoutes } from './admin-settings/routes.js';
import { siteAdminRoutes } from './site-admin/routes.js';
import { variableSetRoutes } from './variable-sets/routes.js';
import { auditRecorder } from './audit-trail/recorder.js';
import { auditTrailRoutes } from './audit-trail/routes.js';
import { auditConfigurationRoutes } from './audit-configuration/routes.js';
import { toolVersionRoutes } from './tool-versions/routes.js';
import { policyToolVersionRoutes } from './tool-versions/policy-tool-routes.js';
import { editionAllows } from '../core/edition.js';
import { membershipRoutes } from './memberships/routes.js';
import { remoteStateRoutes } from './remote-state/routes.js';
import { reservedTagKeyRoutes } from './reserved-tag-keys/routes.js';
import { runTaskRoutes } from './run-tasks/routes.js';
import { sshKeyRoutes } from './ssh-keys/routes.js';
import { subscriptionRoutes } from './subscriptions/routes.js';
import { tagRoutes } from './tags/routes.js';
import { tagBindingRoutes } from './tag-bindings/routes.js';
import { teamAccessRoutes } from './team-access/routes.js';
import { workspaceTaskRoutes } from './workspace-tasks/routes.js';
import { workspaceActionRoutes } from './workspaces/actions.js';
import { workspaceRoutes } from './workspaces/routes.js';
import { oauthClientRoutes } from './oauth-clients/routes.js';
import { dataRetentionRoutes } from './data-retention/routes.js';
import { stateVersionBackingDataRoutes } from './state-versions/backing-routes.js';
import { configurationVersionBackingDataRoutes } from './configuration-versions/backing-routes.js';
import { noCodeRoutes } from './registry/no-code-routes.js';
import { registryRoutes } from './registry/routes.js';
import { registryProviderRoutes } from './registry-providers/routes.js';
import { projectRoutes } from './projects/routes.js';
import { stateVersionRoutes } from './state-versions/routes.js';
import { variableRoutes } from './variables/routes.js';
import { teamProjectRoutes } from './team-projects/routes.js';
import { configurationVersionRoutes } from './configuration-versions/routes.js';
import { runRoutes } from './runs/routes.js';
import { queryRoutes } from './queries/routes.js';
import { runEventRoutes } from './runs/event-routes.js';
import { taskStageRoutes } from './task-stages/routes.js';
import { runTriggerRoutes } from './runs/trigger-routes.js';
import { notificationRoutes } from './notifications/routes.js';
import { policyRoutes } from './policies/routes.js';
import { policyCheckRoutes } from './policies/check-routes.js';
import { policyEvaluationRoutes } from './policies/evaluation-routes.js';
import { policySetParameterRoutes } from './policies/parameter-routes.js';
import { planExportRoutes } from './policies/plan-export-routes.js';

/** The `/api/v2` tree: JSON:API conventions, bearer auth, one permissions module. */
export async function platformPlugin(app: FastifyInstance, context: PlatformContext): Promise<void> {
  // The version headers the real editions send on every API response (a refused token's and a rate limit's included, so
  // this hook comes before the conventions' own), which the Go client reads at ping.
  const headers = versionHeaders(context.config.edition);
  // A callback, not an async hook: a promise and a microtask per request for a few headers buy nothing.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  registerPlatformConventions(app, context);
  // Before any route: each gets its declared answer as `schema.response` (see jsonapi/responses.ts).
  declareResponses(app, PLATFORM_RESPONSES);
  // Every successful write becomes an audit event, here once rather than in each service. Only
  // routes that take a write method carry its hooks: reads, most requests, skip three hook calls.
  const audit = auditRecorder(context.store.db, context.clock);
  app.addHook('onRoute', (route) => auditWrites(route, audit));

  // The route groups are called in this scope rather than each registered as a plugin: a plugin
  // scope of its own (avvio's queue, Fastify's encapsulation) cost start-up some 0.5 ms apiece and
  // bought nothing, since these groups add no hook, decorator or parser. The groups that add a
  // hook (the admin APIs' below) keep their scopes, so the hook stays on their routes only.
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  await metaRoutes(app);
  await organizationRoutes(typed, context);
  await userRoutes(typed, context);
  await teamRoutes(typed, context);
  await tokenRoutes(typed, context);
  await workspaceRoutes(typed, context);
  await projectRoutes(typed, context);
  await stateVersionRoutes(typed, context);
  await teamProjectRoutes(typed, context);
  await configurationVersionRoutes(typed, context);
  await runRoutes(typed, context);
  await runEventRoutes(typed, context);
  await queryRoutes(typed, context);
  await taskStageRoutes(typed, context);
  await runTriggerRoutes(typed, context);
  await notificationRoutes(typed, context);
  await policyRoutes(typed, context);
  await policyCheckRoutes(typed, context);
  await policyEvaluationRoutes(typed, context);
  await policySetParameterRoutes(typed, context);
  await planExportRoutes(typed, context);
  await variableRoutes(typed, context);
  await variableSetRoutes(typed, context);
  await workspaceActionRoutes(typed, context);
  await tagRoutes(typed, context);
  await tagBindingRoutes(typed, context);
  await remoteStateRoutes(typed, context);
  await reservedTagKeyRoutes(typed, context);
  await agentPoolRoutes(typed, context);
  await agentRoutes(typed, context);
  await sshKeyRoutes(typed, context);
  await teamAccessRoutes(typed, context);
  await runTaskRoutes(typed, context);
  await workspaceTaskRoutes(typed, context);
  await membershipRoutes(typed, context);
  await subscriptionRoutes(typed, context);
  if (editionAllows.auditTrails(context.config.edition)) {
    await auditTrailRoutes(typed, context);
    await auditConfigurationRoutes(typed, context);
  }
  if (editionAllows.dataRetentionPolicies(context.config.edition)) {
    await dataRetentionRoutes(typed, context);
  }
  if (editionAllows.backingDataActions(context.config.edition)) {
    await stateVersionBackingDataRoutes(typed, context);
    await configurationVersionBackingDataRoutes(typed, context);
  }
  if (editionAllows.adminApi(context.config.edition)) {
    await app.register(async (scoped) => adminRoutes(scoped, context));
    await app.register(async (scoped) => siteAdminRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
    await app.register(async (scoped) => toolVersionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
    await app.register(async (scoped) => policyToolVersionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  }
  await oauthClientRoutes(typed, context);
  await registryRoutes(app, context);
  await registryProviderRoutes(app, context);
  await noCodeRoutes(typed, context);
}
