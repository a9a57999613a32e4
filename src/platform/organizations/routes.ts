import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import { Permissions } from '../auth/permissions.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { entitlementSetResource, organizationResource } from './resource.js';

// The settings below are the keys of ORGANIZATION_DEFAULTS, grouped by the check each needs.
const EXECUTION_MODES = ['remote', 'local', 'agent'];
const AUTH_POLICIES = ['password', 'two_factor_mandatory'];
const BOOLEAN_SETTINGS = [
  'cost-estimation-enabled',
  'assessments-enforced',
  'allow-force-delete-workspaces',
  'send-passing-statuses-for-untriggered-speculative-plans',
  'aggregated-commit-status-enabled',
  'speculative-plan-management-enabled',
];
/** Session lengths in minutes. */
const MINUTE_SETTINGS = ['session-timeout', 'session-remember'];

const ORGANIZATION_BODY = resourceBody(['organizations'], {
  attributes: {
    name: Attr.string(),
    email: Attr.string(),
    'default-execution-mode': Attr.string(EXECUTION_MODES.join(', ')),
    'collaborator-auth-policy': Attr.string(AUTH_POLICIES.join(', ')),
    ...Object.fromEntries(BOOLEAN_SETTINGS.map((name) => [name, Attr.boolean()])),
    ...Object.fromEntries(MINUTE_SETTINGS.map((name) => [name, Attr.integer('minutes, at least 1')])),
  },
  relationships: ['default-agent-pool'],
});
const byName = params('name');

export async function organizationRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = context.services.organizations;
  // Only the default project can be included; asking for anything else is the 400 clients match on.
  const includes = context.services.organizationIncludes;
  const ORGANIZATION_INCLUDES = includes.names;
  const render = (principal: Parameters<Permissions['organization']>[0], organization: Parameters<typeof organizationResource>[0]) =>
    organizationResource(organization, new Permissions(db).organization(principal, organization));

  app.get('/organizations', { schema: { querystring: listQuery({ includes: ORGANIZATION_INCLUDES }) } }, async (request, reply) => {
    const page = readPage(request.query);
    const include = includes.read(request.query);
    const { rows, total } = service.list(request.principal, page.offset, page.size);
    const items = rows.map((row) => render(request.principal, row));
    const included = includes.collect(include, { principal: request.principal, organizations: rows });
    return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
  });

  app.post('/organizations', { schema: { body: ORGANIZATION_BODY } }, async (request, reply) => {
    const input = readResource(request.body, ['organizations']);
    const attributes = new Attributes(input.attributes);
    const organization = service.createAs(request.principal, {
      name: attributes.string('name', { required: true }) as string,
      email: attributes.string('email', { required: true }) as string,
      attributes: readSettings(attributes),
    });
    return sendDocument(reply, 201, singleDocument(render(request.principal, organization)));
  });

  app.get('/organizations/:name', { schema: { params: byName, querystring: showQuery(ORGANIZATION_INCLUDES) } }, async (request, reply) => {
    const include = includes.read(request.query);
    const { organization, granted } = service.readable(request.principal, request.params.name);
    const included = includes.collect(include, { principal: request.principal, organizations: [organization] });
    return sendDocument(reply, 200, singleDocument(organizationResource(organization, granted), included));
  });

  app.patch('/organizations/:name', { schema: { params: byName, body: ORGANIZATION_BODY } }, async (request, reply) => {
    const input = readResource(request.body, ['organizations']);
    const attributes = new Attributes(input.attributes);
    const name = attributes.string('name');
    const email = attributes.string('email');
    const { organization, granted } = service.update(request.principal, request.params.name, {
      ...(name ? { name } : {}),
      ...(email ? { email } : {}),
      attributes: readSettings(attributes),
      ...defaultAgentPool(input.relationships),
    });
    return sendDocument(reply, 200, singleDocument(organizationResource(organization, granted)));
  });

  app.delete('/organizations/:name', { schema: { params: byName } }, async (request, reply) => {
    service.destroy(request.principal, request.params.name);
    return sendNoContent(reply);
  });

  app.get('/organizations/:name/entitlement-set', { schema: { params: byName } }, async (request, reply) => {
    const organization = service.visible(request.principal, request.params.name);
    return sendDocument(reply, 200, singleDocument(entitlementSetResource(organization)));
  });

  // Stacks are not emulated, so every organization has none. go-tfe's organization cleanup
  // lists them (and would delete each) before deleting the organization.
  app.get('/organizations/:name/stacks', { schema: { params: byName, querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query);
    service.visible(request.principal, request.params.name);
    return sendDocument(reply, 200, listDocument(request, { items: [], total: 0, page }));
  });
}

/** The settings a create or update may carry, each checked; anything else in the body is ignored. */
function readSettings(attributes: Attributes): Record<string, unknown> {
  const settings: Record<string, unknown> = {
    'default-execution-mode': attributes.string('default-execution-mode', oneOf(EXECUTION_MODES)),
    'collaborator-auth-policy': attributes.string('collaborator-auth-policy', oneOf(AUTH_POLICIES)),
  };
  for (const name of BOOLEAN_SETTINGS) settings[name] = attributes.boolean(name);
  for (const name of MINUTE_SETTINGS) settings[name] = attributes.integer(name, { minimum: 1 });
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

function oneOf(values: readonly string[]) {
  return { pattern: new RegExp(`^(${values.join('|')})$`), patternText: `must be one of ${values.join(', ')}` };
}

/** `relationships.default-agent-pool`: an id to set, null to clear, or nothing (unchanged). */
function defaultAgentPool(relationships: Record<string, unknown>): { defaultAgentPoolId?: string | null } {
  const id = relationshipId(relationships, 'default-agent-pool', 'agent-pools');
  return id === undefined ? {} : { defaultAgentPoolId: id };
}
