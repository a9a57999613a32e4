import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_RESPONSES } from '../../src/platform/response-tables.js';
import { responseKey } from '../../src/platform/jsonapi/responses.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/app.js';
import {
  act,
  buildWorld,
  deleteAll,
  discover,
  doom,
  patchAll,
  queryFor,
  relate,
  Sampler,
  valuesFor,
  type Sample,
} from './openapi-samples.js';

/**
 * The OpenAPI document against the server's real answers: a sample request for every `/api/v2`
 * operation this test can build (openapi-samples.ts), and each answer's status must be one the
 * document lists for the operation, its body valid against the schema of that status. Resource
 * `attributes` are checked closed here (the document leaves them open), so an attribute a renderer
 * writes and its schema forgets fails too.
 */

type Schema = Record<string, unknown>;
type Operation = {
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
};
type Document = { paths: Record<string, Record<string, Operation>> };

type TypeSchema = { const?: string; enum?: string[]; anyOf?: TypeSchema[] };

/** The resource type a request body schema names (its first `data.type` value), or "". */
function bodyType(operation: Operation | undefined): string {
  type Envelope = { anyOf?: Envelope[]; properties?: { data?: { properties?: { type?: TypeSchema } } } };
  const schema = Object.values(operation?.requestBody?.content ?? {})[0]?.schema as Envelope | undefined;
  // An optional body is `anyOf: [envelope, null]`.
  const envelope = schema?.anyOf?.[0] ?? schema;
  const first = (type: TypeSchema | undefined): string | undefined =>
    type?.const ?? type?.enum?.[0] ?? (type?.anyOf ? first(type.anyOf[0]) : undefined);
  return first(envelope?.properties?.data?.properties?.type) ?? '';
}

/** A copy with every `attributes` object closed to the properties it declares. */
function closeAttributes(schema: unknown, parentKey = ''): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closeAttributes(item, parentKey));
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = closeAttributes(value, key);
  if (parentKey === 'attributes' && copy['type'] === 'object' && copy['properties'] && Object.keys(copy['properties']).length > 0)
    copy['additionalProperties'] = false;
  return copy;
}

/** The media type and schema the document gives for `status` (an exact code first, then `4XX`-style ranges). */
function documented(operation: Operation, status: number): { found: boolean; mediaType?: string; schema?: Schema } {
  const responses = operation.responses ?? {};
  const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
  if (!response) return { found: false };
  const [mediaType, content] = Object.entries(response.content ?? {})[0] ?? [];
  return { found: true, ...(mediaType ? { mediaType } : {}), ...(content?.schema ? { schema: content.schema } : {}) };
}

export function checkSamples(document: Document, samples: Sample[]): { problems: string[]; checked: Set<string> } {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  // Keyed by text: many operations declare equal schemas as separate objects, and compiling is the slow part.
  const compiled = new Map<string, ValidateFunction>();
  const problems: string[] = [];
  const checked = new Set<string>();
  for (const sample of samples) {
    const [method, path] = sample.operation.split(' ') as [string, string];
    const operation = document.paths[path]?.[method.toLowerCase()];
    const where = `${sample.operation} (${sample.path})`;
    if (!operation) {
      // A route of the other edition is not registered here: the not-found document is right.
      if (sample.status === 404) continue;
      problems.push(`${where}: not in the document`);
      continue;
    }
    const { found, mediaType, schema } = documented(operation, sample.status);
    if (!found) {
      problems.push(`${where}: answered ${sample.status}, documented ${Object.keys(operation.responses ?? {}).join(', ')}`);
      continue;
    }
    if (sample.status >= 300) continue;
    if (mediaType && sample.body !== undefined && !sample.contentType?.startsWith(mediaType)) {
      problems.push(`${where}: answered ${sample.contentType ?? 'no content type'}, documented ${mediaType}`);
      continue;
    }
    if (!schema) {
      if (sample.body !== undefined) problems.push(`${where}: answered a body, documented none`);
      else checked.add(sample.operation);
      continue;
    }
    if (schema['x-undeclared-response']) continue;
    const closed = closeAttributes(schema) as Schema;
    const text = JSON.stringify(closed);
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(closed);
      compiled.set(text, validate);
    }
    const body = sample.body === undefined ? null : sample.body;
    if (!validate(body)) {
      const errors = (validate.errors ?? []).map((error) => {
        const extra = (error.params as { additionalProperty?: string }).additionalProperty;
        return `${error.instancePath} ${error.message ?? ''}${extra ? ` (${extra})` : ''}`;
      });
      problems.push(`${where}: ${errors.join('; ')}`);
      continue;
    }
    checked.add(sample.operation);
  }
  return { problems, checked };
}

const CONFIGURATIONS = [
  { dialect: 'spec', edition: 'self-hosted' },
  { dialect: 'upstream', edition: 'hosted' },
];

describe.each(CONFIGURATIONS)('the OpenAPI document against real answers ($dialect dialect, $edition edition)', ({ dialect, edition }) => {
  let server: TestServer;
  let document: Document;
  const sampler = { current: undefined as Sampler | undefined };
  let verdict: { problems: string[]; checked: Set<string> } | undefined;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_DIALECT: dialect, UNDERSTUDY_EDITION: edition });
    document = (await (await fetch(`${server.baseUrl}/_emulator/openapi.json`)).json()) as Document;
    const made = new Sampler(server);
    await buildWorld(made, edition);
    await relate(made);
    await discover(made);
    const operations = Object.entries(document.paths).filter(([path]) => path.startsWith('/api/v2/'));
    for (const [path, item] of operations) {
      if (!item['get'] || path.endsWith('/stream')) continue;
      const template = path.slice('/api/v2'.length);
      const values = valuesFor(template, made.ids);
      if (values) await made.call('GET', template, values, undefined, queryFor(template, made.ids));
    }
    await act(made);
    const patches = operations.filter(([, item]) => item['patch']).map(([path, item]) => ({ path, type: bodyType(item['patch']) }));
    await patchAll(made, patches);
    await doom(made);
    await deleteAll(
      made,
      operations.filter(([, item]) => item['delete']).map(([path]) => path.slice('/api/v2'.length)),
    );
    sampler.current = made;
    // Checked here, within the world's generous budget: compiling a validator for every documented
    // schema is CPU work that a busy machine stretches, and the test below only reads the verdict.
    verdict = checkSamples(document, made.samples);
  }, 240_000);
  afterAll(() => server.close());

  it('answers every sampled operation with a documented status and a body its schema accepts', () => {
    const samples = (sampler.current as Sampler).samples;
    const { problems, checked } = verdict as NonNullable<typeof verdict>;
    expect(problems).toEqual([]);
    // Most of the API answered with a success whose declared schema was checked; the rest are listed.
    const all = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v2/'))
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    const answered = new Map(samples.map((sample) => [sample.operation, sample]));
    const unchecked = all
      .filter((operation) => !checked.has(operation))
      .map((operation) => {
        const sample = answered.get(operation);
        const detail = (sample?.body as { errors?: { detail?: string }[] } | undefined)?.errors?.[0]?.detail;
        return sample ? `${operation}: ${sample.status} ${detail ?? ''} (${sample.path})` : `${operation}: not sampled`;
      });
    console.info(`${checked.size} of ${all.length} /api/v2 operations checked on a success; not reached:\n${unchecked.join('\n')}`);
    expect(checked.size).toBeGreaterThan(250);
  });

  it('declares a response for every /api/v2 route', () => {
    const routes = server.app.routes.filter((route) => route.url.startsWith('/api/v2/') && route.method !== 'HEAD');
    const undeclared = routes.map((route) => responseKey(route.method, route.url)).filter((key) => PLATFORM_RESPONSES[key] === undefined);
    expect(undeclared).toEqual([]);
    expect(JSON.stringify(document.paths)).not.toContain('x-undeclared-response');
  });

  it('documents without serializing: members the schema does not name are still written', async () => {
    // `included` is declared as resources with an empty attributes object; a serializer built from
    // the schema (Fastify's default) would write `"attributes":{}`.
    const response = await fetch(`${server.baseUrl}/api/v2/organizations/understudy?include=default-project`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const body = (await response.json()) as { included: { type: string; attributes: Record<string, unknown> }[] };
    expect(body.included[0]).toMatchObject({ type: 'projects', attributes: { name: 'Default Project' } });
  });

  it('fails a body that breaks its schema: a wrong attribute type, a forgotten attribute, an undocumented status', () => {
    const samples = (sampler.current as Sampler).samples;
    const show = samples.find((sample) => sample.operation === 'GET /api/v2/workspaces/{id}' && sample.status === 200) as Sample;
    const body = show.body as { data: { attributes: Record<string, unknown> } };
    const wrongType = { ...show, body: { data: { ...body.data, attributes: { ...body.data.attributes, locked: 'no' } } } };
    const forgotten = { ...show, body: { data: { ...body.data, attributes: { ...body.data.attributes, 'not-declared': 1 } } } };
    const status = { ...show, status: 201 };
    const { problems } = checkSamples(document, [wrongType, forgotten, status]);
    expect(problems).toEqual([
      expect.stringContaining('/data/attributes/locked must be boolean'),
      expect.stringContaining('must NOT have additional properties'),
      expect.stringContaining('answered 201, documented 200, 4XX'),
    ]);
  });
});

describe('the response declarations', () => {
  it('each name a route of one edition or the other (none left behind by a moved route)', async () => {
    const keys = new Set<string>();
    for (const edition of ['self-hosted', 'hosted']) {
      const server = await startServer({ UNDERSTUDY_EDITION: edition });
      try {
        for (const route of server.app.routes) if (route.url.startsWith('/api/v2/')) keys.add(responseKey(route.method, route.url));
      } finally {
        await server.close();
      }
    }
    expect(Object.keys(PLATFORM_RESPONSES).filter((key) => !keys.has(key))).toEqual([]);
  }, 60_000);
});
