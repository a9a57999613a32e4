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

  await app.register(metaRoutes);
  await app.register(async (scoped) => organizationRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => userRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => teamRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => tokenRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => workspaceRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => projectRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => stateVersionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => teamProjectRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => configurationVersionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => runRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => runEventRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => queryRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => taskStageRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => runTriggerRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => notificationRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => policyRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => policyCheckRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => policyEvaluationRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => policySetParameterRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => planExportRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => variableRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => variableSetRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => workspaceActionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => tagRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => tagBindingRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => remoteStateRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => reservedTagKeyRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => agentPoolRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => agentRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => sshKeyRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => teamAccessRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => runTaskRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => workspaceTaskRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => membershipRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => subscriptionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  if (editionAllows.auditTrails(context.config.edition)) {
    await app.register(async (scoped) => auditTrailRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
    await app.register(async (scoped) => auditConfigurationRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  }
  if (editionAllows.dataRetentionPolicies(context.config.edition)) {
    await app.register(async (scoped) => dataRetentionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  }
  if (editionAllows.backingDataActions(context.config.edition)) {
    await app.register(async (scoped) => stateVersionBackingDataRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
    await app.register(async (scoped) => configurationVersionBackingDataRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  }
  if (editionAllows.adminApi(context.config.edition)) {
    await app.register(async (scoped) => adminRoutes(scoped, context));
    await app.register(async (scoped) => siteAdminRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
    await app.register(async (scoped) => toolVersionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
    await app.register(async (scoped) => policyToolVersionRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  }
  await app.register(async (scoped) => oauthClientRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
  await app.register(async (scoped) => registryRoutes(scoped, context));
  await app.register(async (scoped) => registryProviderRoutes(scoped, context));
  await app.register(async (scoped) => noCodeRoutes(scoped.withTypeProvider<TypeBoxTypeProvider>(), context));
}
