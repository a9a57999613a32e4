import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipIds, type ResourceInput } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { DbOrTx } from '../../store/store.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { poolWorkspaceIds, workspaceIdsByPool, type AgentPoolRow } from './repo.js';
import { agentPoolResource } from './resource.js';
import { type PoolWorkspaceLists } from './service.js';

const AGENT_POOL_BODY = resourceBody(['agent-pools'], {
  attributes: { name: Attr.string(), 'organization-scoped': Attr.boolean() },
  relationships: ['allowed-workspaces', 'excluded-workspaces'],
});

const NAME_RULE = { pattern: /^[A-Za-z0-9 _.-]+$/, patternText: 'may contain letters, numbers, spaces, ".", "-" and "_"', maxLength: 90 };

/** The pools as resources, with their workspaces read in two queries whatever the number of pools. */
function renderPools(db: DbOrTx, pools: AgentPoolRow[], organizationName: string) {
  const ids = pools.map((pool) => pool.id);
  const using = workspaceIdsByPool(db, ids);
  const lists = poolWorkspaceIds(db, ids);
  return pools.map((pool) => {
    const { allowed, excluded } = lists.get(pool.id) ?? { allowed: [], excluded: [] };
    return agentPoolResource(pool, organizationName, { using: using.get(pool.id) ?? [], allowed, excluded });
  });
}

/** `allowed-workspaces` and `excluded-workspaces` relationships, when the body carries them. */
function readPoolWorkspaces(input: ResourceInput): PoolWorkspaceLists {
  return {
    allowedWorkspaces: relationshipIds(input.relationships, 'allowed-workspaces', 'workspaces'),
    excludedWorkspaces: relationshipIds(input.relationships, 'excluded-workspaces', 'workspaces'),
  };
}

export async function agentPoolRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = context.services.agentPools;
  const render = (pool: AgentPoolRow, organizationName: string) => (renderPools(db, [pool], organizationName) as [ResourceObject])[0];

  const listSchema = { params: params('org'), querystring: listQuery({ filters: ['q', 'filter[allowed_workspaces][name]'] }) };
  app.get('/organizations/:org/agent-pools', { schema: listSchema }, async (request, reply) => {
    const query: Record<string, unknown> = request.query;
    const page = readPage(query);
    const q = typeof query['q'] === 'string' && query['q'] !== '' ? query['q'] : undefined;
    const allowed = query['filter[allowed_workspaces][name]'];
    const filter = { query: q, allowedWorkspaceName: typeof allowed === 'string' && allowed !== '' ? allowed : undefined };
    const { organization, rows, total } = service.list(request.principal, request.params.org, filter, page.offset, page.size);
    const items = renderPools(db, rows, organization.name);
    return sendDocument(reply, 200, listDocument(request, { items, total, page }));
  });

  app.post('/organizations/:org/agent-pools', { schema: { params: params('org'), body: AGENT_POOL_BODY } }, async (request, reply) => {
    const input = readResource(request.body, ['agent-pools']);
    const attributes = new Attributes(input.attributes);
    const name = attributes.string('name', { required: true, ...NAME_RULE }) as string;
    const organizationScoped = attributes.boolean('organization-scoped');
    const { pool, organization } = service.create(request.principal, request.params.org, {
      name,
      organizationScoped,
      ...readPoolWorkspaces(input),
    });
    return sendDocument(reply, 201, singleDocument(render(pool, organization.name)));
  });

  app.get('/agent-pools/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { pool, organization } = service.visible(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(render(pool, organization.name)));
  });

  app.patch('/agent-pools/:id', { schema: { params: params('id'), body: AGENT_POOL_BODY } }, async (request, reply) => {
    const input = readResource(request.body, ['agent-pools']);
    const attributes = new Attributes(input.attributes);
    const name = attributes.string('name', NAME_RULE) ?? undefined;
    const organizationScoped = attributes.boolean('organization-scoped');
    const changes = { ...(name !== undefined ? { name } : {}), ...(organizationScoped !== undefined ? { organizationScoped } : {}) };
    const { pool, organization } = service.update(request.principal, request.params.id, changes, readPoolWorkspaces(input));
    return sendDocument(reply, 200, singleDocument(render(pool, organization.name)));
  });

  app.delete('/agent-pools/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
