import type { PlatformApp, PlatformContext } from '../context.js';
import { unprocessable } from '../../core/errors.js';
import type { PolicyKind } from '../../store/tables.js';
import { readIdentifierList, readResource } from '../jsonapi/body.js';
import { listDocument, requestUrl, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { identifierListBody, listQuery, params } from '../jsonapi/schemas.js';
import {
  KINDS,
  MEMBER_TYPES,
  POLICY_BODY,
  POLICY_SET_BODY,
  POLICY_SET_TYPES,
  POLICY_TYPES,
  readPolicyInput,
  readPolicySetInput,
} from './input.js';
import type { ListFilter, MemberKind } from './repo.js';
import { policyResource, policySetResource } from './resource.js';
import { policySetVersionResource } from './versions.js';

/** The largest policy source an upload takes. */
const UPLOAD_LIMIT = 1024 * 1024;
const LIST_FILTERS = ['search[name]', 'filter[kind]'] as const;

function listFilter(query: Record<string, unknown>): ListFilter {
  const search = query['search[name]'];
  const kind = query['filter[kind]'];
  const filter: ListFilter = {};
  if (typeof search === 'string' && search !== '') filter.search = search;
  if (kind !== undefined) {
    if (typeof kind !== 'string' || !KINDS.includes(kind as PolicyKind)) throw unprocessable('filter[kind] must be sentinel or opa');
    filter.kind = kind as PolicyKind;
  }
  return filter;
}

export async function policyRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.policies;
  const policyDocument = (row: Parameters<typeof policyResource>[0], organizationName: string) =>
    singleDocument(policyResource(row, organizationName, service.setsOf([row.id]).get(row.id) ?? []));

  app.get(
    '/organizations/:org/policies',
    { schema: { params: params('org'), querystring: listQuery({ filters: LIST_FILTERS }) } },
    async (request, reply) => {
      const page = readPage(request.query);
      const filter = listFilter(request.query);
      const { organization, rows, total } = service.listPolicies(request.principal, request.params.org, filter, page.offset, page.size);
      const sets = service.setsOf(rows.map((row) => row.id));
      const items = rows.map((row) => policyResource(row, organization.name, sets.get(row.id) ?? []));
      return sendDocument(reply, 200, listDocument(request, { items, total, page }));
    },
  );

  app.post('/organizations/:org/policies', { schema: { params: params('org'), body: POLICY_BODY } }, async (request, reply) => {
    const input = readPolicyInput(readResource(request.body, POLICY_TYPES).attributes, true);
    const { row, organization } = service.createPolicy(request.principal, request.params.org, input);
    return sendDocument(reply, 201, policyDocument(row, organization.name));
  });

  app.get('/policies/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { row, organization } = service.policy(request.principal, request.params.id);
    return sendDocument(reply, 200, policyDocument(row, organization.name));
  });

  app.patch('/policies/:id', { schema: { params: params('id'), body: POLICY_BODY } }, async (request, reply) => {
    const input = readPolicyInput(readResource(request.body, POLICY_TYPES).attributes, false);
    const { row, organization } = service.updatePolicy(request.principal, request.params.id, input);
    return sendDocument(reply, 200, policyDocument(row, organization.name));
  });

  app.delete('/policies/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.deletePolicy(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  // The policy's source is plain bytes, whatever content type the client names (the Go client says octet-stream).
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: UPLOAD_LIMIT }, (_request, body, done) => done(null, body));
    raw.put<{ Params: { id: string } }>('/policies/:id/upload', { bodyLimit: UPLOAD_LIMIT }, async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      service.upload(request.principal, request.params.id, body.toString('utf8'));
      return sendNoContent(reply);
    });
  });

  app.get('/policies/:id/download', { schema: { params: params('id') } }, async (request, reply) => {
    return reply.code(200).type('text/plain').send(service.download(request.principal, request.params.id));
  });

  policySetRoutes(app, context);
}

function policySetRoutes(app: PlatformApp, context: PlatformContext): void {
  const service = context.services.policies;
  const versions = context.services.policySetVersions;

  app.get(
    '/organizations/:org/policy-sets',
    { schema: { params: params('org'), querystring: listQuery({ filters: LIST_FILTERS }) } },
    async (request, reply) => {
      const page = readPage(request.query);
      const filter = listFilter(request.query);
      const { organization, rows, total } = service.listPolicySets(request.principal, request.params.org, filter, page.offset, page.size);
      const items = rows.map((row) => policySetResource(row, organization.name, service.membersOf(row.id), versions.versionsOf(row.id)));
      return sendDocument(reply, 200, listDocument(request, { items, total, page }));
    },
  );

  app.post('/organizations/:org/policy-sets', { schema: { params: params('org'), body: POLICY_SET_BODY } }, async (request, reply) => {
    const body = readResource(request.body, POLICY_SET_TYPES);
    const input = readPolicySetInput(body.attributes, body.relationships, true);
    const { row, organization, members } = service.createPolicySet(request.principal, request.params.org, input);
    return sendDocument(reply, 201, singleDocument(policySetResource(row, organization.name, members, versions.versionsOf(row.id))));
  });

  app.get('/policy-sets/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { row, organization, members } = service.policySet(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(policySetResource(row, organization.name, members, versions.versionsOf(row.id))));
  });

  app.patch('/policy-sets/:id', { schema: { params: params('id'), body: POLICY_SET_BODY } }, async (request, reply) => {
    const body = readResource(request.body, POLICY_SET_TYPES);
    const input = readPolicySetInput(body.attributes, body.relationships, false);
    const { row, organization, members } = service.updatePolicySet(request.principal, request.params.id, input);
    return sendDocument(reply, 200, singleDocument(policySetResource(row, organization.name, members, versions.versionsOf(row.id))));
  });

  app.delete('/policy-sets/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.deletePolicySet(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  app.post('/policy-sets/:id/versions', { schema: { params: params('id') } }, async (request, reply) => {
    const { row, uploadPath } = versions.create(request.principal, request.params.id);
    return sendDocument(reply, 201, singleDocument(policySetVersionResource(row, `${requestUrl(request).origin}${uploadPath}`)));
  });

  app.get('/policy-set-versions/:id', { schema: { params: params('id') } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(policySetVersionResource(versions.show(request.principal, request.params.id))));
  });

  for (const kind of Object.keys(MEMBER_TYPES) as MemberKind[]) {
    const path = `/policy-sets/:id/relationships/${kind}`;
    const schema = { params: params('id'), body: identifierListBody(MEMBER_TYPES[kind]) };
    for (const adding of [true, false]) {
      app.route({
        method: adding ? 'POST' : 'DELETE',
        url: path,
        schema,
        handler: async (request, reply) => {
          const ids = readIdentifierList(request.body, MEMBER_TYPES[kind]).map((entry, index) => {
            if (entry.id === undefined) throw unprocessable('each entry needs an id', `/data/${index}/id`);
            return entry.id;
          });
          service.changeMembers(request.principal, request.params.id, kind, ids, adding);
          return sendNoContent(reply);
        },
      });
    }
  }
}
