import { posix } from 'node:path';
import { ApiError } from '../../core/errors.js';
import type { ModuleDetails, ModulePart } from '../../store/tables.js';

/** hcl2json's output: block type → label(s) → list of bodies. */
type Json = Record<string, unknown>;
type Blocks = Record<string, Json[]>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** hcl2json writes expressions as `${…}` strings; the registry shows them bare. */
const bare = (value: unknown): string => (typeof value === 'string' ? value.replace(/^\$\{([\s\S]*)\}$/, '$1') : JSON.stringify(value));
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function labelled(document: Json, kind: string): Blocks {
  const blocks = document[kind];
  return isObject(blocks) ? (blocks as Blocks) : {};
}

function partOf(path: string, documents: Json[], readme: string): ModulePart {
  const part: ModulePart = {
    path,
    name: path === '' ? '' : posix.basename(path),
    readme,
    empty: documents.length === 0,
    inputs: [],
    outputs: [],
    dependencies: [],
    provider_dependencies: [],
    resources: [],
  };
  for (const document of documents) {
    for (const [name, [body = {}]] of Object.entries(labelled(document, 'variable'))) {
      part.inputs.push({
        name,
        type: body['type'] === undefined ? '' : bare(body['type']),
        description: text(body['description']),
        default: body['default'] === undefined ? '' : JSON.stringify(body['default']),
        required: body['default'] === undefined,
      });
    }
    for (const [name, [body = {}]] of Object.entries(labelled(document, 'output')))
      part.outputs.push({ name, description: text(body['description']) });
    for (const [name, [body = {}]] of Object.entries(labelled(document, 'module'))) {
      part.dependencies.push({ name, source: text(body['source']), version: text(body['version']) });
    }
    for (const [type, byName] of Object.entries(labelled(document, 'resource'))) {
      for (const name of Object.keys(byName)) part.resources.push({ name, type });
    }
    const terraform = Array.isArray(document['terraform']) ? (document['terraform'] as Json[]) : [];
    for (const block of terraform) {
      const required = Array.isArray(block['required_providers']) ? (block['required_providers'] as Json[]) : [];
      for (const providers of required) {
        for (const [name, spec] of Object.entries(providers)) {
          const source = isObject(spec) ? text(spec['source']) : '';
          const version = isObject(spec) ? text(spec['version']) : text(spec);
          part.provider_dependencies.push({
            name,
            namespace: source.includes('/') ? source.split('/').slice(-2)[0]! : '',
            source,
            version,
          });
        }
      }
    }
  }
  const byName = <T extends { name: string }>(list: T[]) => list.sort((a, b) => a.name.localeCompare(b.name));
  byName(part.inputs);
  byName(part.outputs);
  return part;
}

/** Directories directly under `parent/` that hold `.tf` files (submodules, examples). */
function childDirectories(files: Map<string, string>, parent: string): string[] {
  const found = new Set<string>();
  for (const path of files.keys()) {
    const parts = path.split('/');
    if (parts.length === 3 && parts[0] === parent && path.endsWith('.tf')) found.add(`${parent}/${parts[1]}`);
  }
  return [...found].sort();
}

/**
 * Reads every `.tf` file with a real HCL2 parser (hcl2json: HashiCorp's parser compiled to
 * WebAssembly) and collects what registries show. A file that does not parse rejects the version.
 */
export async function extractDetails(files: Map<string, string>): Promise<ModuleDetails> {
  // Loaded on first use: the parser unpacks its WebAssembly when imported, a cost start-up need not pay.
  const { parse } = await import('@cdktf/hcl2json');
  const parsed = new Map<string, Json>();
  for (const [path, content] of files) {
    if (!path.endsWith('.tf')) continue;
    try {
      parsed.set(path, (await parse(path, content)) as Json);
    } catch (error) {
      const message = (error as Error).message.replace(/^parse config: /, '');
      throw new ApiError(422, `the module archive was rejected: ${path} is not valid HCL: ${message}`, { title: 'invalid archive' });
    }
  }
  const part = (dir: string): ModulePart => {
    const documents = [...parsed].filter(([path]) => posix.dirname(path) === (dir === '' ? '.' : dir)).map(([, document]) => document);
    const readme =
      [...files].find(([path]) => posix.dirname(path) === (dir === '' ? '.' : dir) && /readme(\.md)?$/i.test(posix.basename(path)))?.[1] ??
      '';
    return partOf(dir, documents, readme);
  };
  const root = part('');
  const providers = new Set(root.provider_dependencies.map((dependency) => dependency.name));
  for (const resource of root.resources) providers.add(resource.type.split('_')[0]!);
  return {
    root,
    submodules: childDirectories(files, 'modules').map(part),
    examples: childDirectories(files, 'examples').map(part),
    providers: [...providers].sort(),
  };
}
