import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { sshKeyResource } from './resource.js';

const NAME_RULE = { maxLength: 255 };
/** A create or update carries the private key: the request journal keeps neither body. */
const SECRET_BODIES = { config: { secretBodies: true } };
const SSH_KEY_BODY = resourceBody(['ssh-keys'], {
  attributes: { name: Attr.string('at most 255 characters'), value: Attr.string('the private key (never returned)') },
});

export async function sshKeyRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.sshKeys;

  app.get('/organizations/:org/ssh-keys', { schema: { params: params('org'), querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query);
    const { organization, rows, total } = service.list(request.principal, request.params.org, page.offset, page.size);
    const items = rows.map((row) => sshKeyResource(row, organization.name));
    return sendDocument(reply, 200, listDocument(request, { items, total, page }));
  });

  app.post(
    '/organizations/:org/ssh-keys',
    { ...SECRET_BODIES, schema: { params: params('org'), body: SSH_KEY_BODY } },
    async (request, reply) => {
      const attributes = new Attributes(readResource(request.body, ['ssh-keys']).attributes);
      const name = attributes.string('name', { required: true, ...NAME_RULE }) as string;
      const value = attributes.string('value', { required: true }) as string;
      const { key, organization } = service.create(request.principal, request.params.org, { name, value });
      return sendDocument(reply, 201, singleDocument(sshKeyResource(key, organization.name)));
    },
  );

  app.get('/ssh-keys/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { key, organization } = service.visible(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(sshKeyResource(key, organization.name)));
  });

  app.patch('/ssh-keys/:id', { ...SECRET_BODIES, schema: { params: params('id'), body: SSH_KEY_BODY } }, async (request, reply) => {
    const attributes = new Attributes(readResource(request.body, ['ssh-keys']).attributes);
    const name = attributes.string('name', NAME_RULE) ?? undefined;
    const value = attributes.string('value') ?? undefined;
    if (name === '') attributes.string('name', { required: true });
    if (value === '') attributes.string('value', { required: true });
    const { key, organization } = service.update(request.principal, request.params.id, {
      ...(name !== undefined ? { name } : {}),
      ...(value !== undefined ? { value } : {}),
    });
    return sendDocument(reply, 200, singleDocument(sshKeyResource(key, organization.name)));
  });

  app.delete('/ssh-keys/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
