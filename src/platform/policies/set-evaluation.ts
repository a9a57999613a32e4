import { posix } from 'node:path';
import { and, asc, desc, eq, exists, notExists, or, sql } from 'drizzle-orm';
import { unprocessable } from '../../core/errors.js';
import { readTarGz } from '../../core/tar-archive.js';
import { prepared } from '../../store/prepared.js';
import { perConnection } from '../../store/per-connection.js';
import { deepFreeze, ReadCache } from '../../store/read-cache.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import {
  policies,
  policySetPolicies,
  policySetProjects,
  policySets,
  policySetVersions,
  policySetWorkspaces,
  type PolicyKind,
} from '../../store/tables.js';
import { FAIL_MARKER, fails } from './evaluation.js';

export type PolicySetRow = typeof policySets.$inferSelect;

/** One policy's simulated outcome: it fails when its text carries the marker. */
export interface EvaluatedPolicy {
  /** The policy's id when it was attached to the set one by one (archive policies have none). */
  id?: string;
  name: string;
  /** As the policy or its set's configuration gives it: advisory, soft-mandatory, hard-mandatory or mandatory. */
  level: string;
  failed: boolean;
  description: string;
  query: string;
}

/** A set's policies as evaluated, or why the set could not be (an uploaded archive that does not read). */
export interface SetEvaluation {
  set: PolicySetRow;
  policies: EvaluatedPolicy[];
  error: string | null;
}

/** A set's member row for the workspace (excluded or attached), correlated with the set of the outer query. */
const memberRow = (db: DbOrTx, excluded: boolean) =>
  db
    .select({ one: sql`1` })
    .from(policySetWorkspaces)
    .where(
      and(
        eq(policySetWorkspaces.policySetId, policySets.id),
        eq(policySetWorkspaces.workspaceId, sql.placeholder('workspaceId')),
        eq(policySetWorkspaces.excluded, excluded),
      ),
    );

/** Every run asks (at its creation and at each check), so the statement is built once. */
const applicableStatement = prepared((db) =>
  db
    .select()
    .from(policySets)
    .where(
      and(
        eq(policySets.organizationId, sql.placeholder('organizationId')),
        or(
          and(eq(policySets.global, true), notExists(memberRow(db, true))),
          and(
            eq(policySets.global, false),
            or(
              exists(memberRow(db, false)),
              exists(
                db
                  .select({ one: sql`1` })
                  .from(policySetProjects)
                  .where(
                    and(eq(policySetProjects.policySetId, policySets.id), eq(policySetProjects.projectId, sql.placeholder('projectId'))),
                  ),
              ),
            ),
          ),
        ),
      ),
    )
    .orderBy(asc(policySets.name))
    .prepare(),
);

/**
 * Every run asks which sets apply two or three times (at its creation, at its post-plan stage and
 * at its policy check): kept per connection and workspace (store/read-cache.ts), dropped on any
 * write to the tables the query reads, so a set made, attached, excluded or deleted counts at once.
 */
const applicableCache = perConnection(
  (sqlite) =>
    new ReadCache<PolicySetRow[]>(
      sqlite,
      'policy_sets_applicable',
      ['policy_sets', 'policy_set_workspaces', 'policy_set_projects'],
      deepFreeze,
    ),
);

/**
 * The sets of an organization that apply to a workspace: attached to it, to its project, or global
 * and not excluding it; one prepared query.
 */
export function applicableSets(
  db: DbOrTx,
  where: { organizationId: string; workspaceId: string; projectId: string | null },
  accept: (set: PolicySetRow) => boolean,
): PolicySetRow[] {
  // A workspace without a project matches no project row: '' is no project's id.
  const params = { ...where, projectId: where.projectId ?? '' };
  const key = `${params.organizationId}\u0000${params.workspaceId}\u0000${params.projectId}`;
  const sets = applicableCache(sqliteOf(db)).get(key, () => applicableStatement(db).all(params));
  return sets.filter(accept);
}

const attachedStatement = prepared((db) =>
  db
    .select({ policy: policies })
    .from(policySetPolicies)
    .innerJoin(policies, eq(policies.id, policySetPolicies.policyId))
    .where(eq(policySetPolicies.policySetId, sql.placeholder('setId')))
    .orderBy(asc(policies.name))
    .prepare(),
);

const readyVersionStatement = prepared((db) =>
  db
    .select({ id: policySetVersions.id })
    .from(policySetVersions)
    .where(and(eq(policySetVersions.policySetId, sql.placeholder('setId')), eq(policySetVersions.status, 'ready')))
    .orderBy(desc(policySetVersions.createdAt), desc(policySetVersions.id))
    .limit(1)
    .prepare(),
);

/** The archive's policy files that a set's configuration names, read once per version (versions never change). */
interface ArchivePolicies {
  policies: EvaluatedPolicy[];
  error: string | null;
}

/** Where a kind's configuration and policy files are (the real formats' names). */
const FORMAT: Record<PolicyKind, { config: string; extension: string }> = {
  sentinel: { config: 'sentinel.hcl', extension: '.sentinel' },
  opa: { config: 'policies.hcl', extension: '.rego' },
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The `policy "name" { … }` blocks of a configuration file as hcl2json reads them. */
function policyBlocks(document: Json): [string, Json][] {
  const blocks = document['policy'];
  if (!isObject(blocks)) return [];
  return Object.entries(blocks).map(([name, bodies]) => [name, Array.isArray(bodies) && isObject(bodies[0]) ? bodies[0] : {}]);
}

/** How many read archives are kept (the oldest read goes first). */
const ARCHIVE_CACHE = 256;
const ARCHIVE_LIMITS = { maxUnpackedBytes: 80 * 1024 * 1024, maxFiles: 10_000, maxArchiveBytes: 10 * 1024 * 1024 };

/**
 * Reads a set version's archive the way the real formats lay it out: under the set's
 * `policies-path` (or the root), `sentinel.hcl` names sentinel policies (`source`, default
 * `./<name>.sentinel`) and `policies.hcl` OPA ones (`query`; the policy's file is the `.rego` file
 * declaring the query's package, or `<name>.rego`), each with `enforcement_level` defaulting to
 * `advisory` as in both formats. Without a configuration file every policy file of the kind counts,
 * named after its file, at `advisory`. A policy fails when its file carries the marker.
 */
async function readArchivePolicies(set: PolicySetRow, archive: Buffer): Promise<ArchivePolicies> {
  const format = FORMAT[set.kind];
  const root = posix
    .normalize(set.policiesPath ?? '')
    .replace(/^\.?\/?/, '')
    .replace(/\/$/, '');
  const inRoot = (path: string) => (root === '' || root === '.' ? path : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : null);
  let files: Map<string, string>;
  try {
    const read = await readTarGz(archive, {
      limits: ARCHIVE_LIMITS,
      reject: (detail) => unprocessable(detail),
      root: 'archive',
      keep: (path) => path.endsWith('.hcl') || path.endsWith(format.extension),
    });
    files = new Map(
      read.entries.flatMap((entry) => {
        const path = entry.content ? inRoot(entry.path) : null;
        return path === null || !entry.content ? [] : [[path, entry.content.toString('utf8')] as [string, string]];
      }),
    );
  } catch (error) {
    return { policies: [], error: `the policy set version's archive could not be read: ${(error as Error).message}` };
  }
  const config = files.get(format.config);
  if (config === undefined) {
    const policiesHere = [...files]
      .filter(([path]) => path.endsWith(format.extension))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, source]) => ({
        name: posix.basename(path, format.extension),
        level: 'advisory',
        failed: source.includes(FAIL_MARKER),
        description: '',
        query: '',
      }));
    return { policies: policiesHere, error: null };
  }
  const { parse } = await import('@cdktf/hcl2json');
  let document: Json;
  try {
    document = (await parse(format.config, config)) as Json;
  } catch (error) {
    return { policies: [], error: `${format.config} is not valid HCL: ${(error as Error).message.replace(/^parse config: /, '')}` };
  }
  const evaluated: EvaluatedPolicy[] = [];
  for (const [name, body] of policyBlocks(document)) {
    const level = text(body['enforcement_level']) || 'advisory';
    const query = text(body['query']);
    let source: string | undefined;
    if (set.kind === 'sentinel') {
      source = files.get(posix.normalize(text(body['source']) || `./${name}${format.extension}`));
    } else {
      const pkg = query
        .replace(/^data\./, '')
        .split('.')
        .slice(0, -1)
        .join('.');
      const declares = (content: string) =>
        pkg !== '' && new RegExp(`^\\s*package\\s+${pkg.replace(/\./g, '\\.')}\\s*$`, 'm').test(content);
      source = [...files].find(([path, content]) => path.endsWith('.rego') && declares(content))?.[1] ?? files.get(`${name}.rego`);
    }
    if (source === undefined) return { policies: [], error: `policy "${name}" has no policy file in the archive` };
    evaluated.push({ name, level, failed: source.includes(FAIL_MARKER), description: text(body['description']), query });
  }
  // hcl2json keeps blocks as object keys, not in file order: by name, as attached policies are.
  return { policies: evaluated.sort((a, b) => a.name.localeCompare(b.name)), error: null };
}

/** What a set evaluates, before any archive is read: its attached policies' outcomes and its current version. */
interface SetContent {
  attached: EvaluatedPolicy[];
  versionId: string | null;
}

/**
 * A set's content, asked by every run the set applies to (whether it has policies, then their
 * outcomes): kept per connection and set (store/read-cache.ts), dropped on any write to the
 * tables it is read from, so a policy uploaded again, edited, attached, detached or deleted, or a
 * new version, counts from the next run on.
 */
const contentCache = perConnection(
  (sqlite) =>
    new ReadCache<SetContent>(sqlite, 'policy_set_content', ['policies', 'policy_set_policies', 'policy_set_versions'], deepFreeze),
);

function readContent(db: DbOrTx, setId: string): SetContent {
  const attached = attachedStatement(db)
    .all({ setId })
    .map(({ policy }) => policy)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((policy) => ({
      id: policy.id,
      name: policy.name,
      level: policy.enforcementLevel,
      failed: fails(policy),
      description: policy.description ?? '',
      query: policy.query ?? '',
    }));
  return { attached, versionId: readyVersionStatement(db).get({ setId })?.id ?? null };
}

/**
 * Evaluates policy sets the simulated way: the policies attached to the set one by one, and the
 * policies of its current (newest ready) version's archive. Archives are read once per version.
 */
export class SetEvaluator {
  private readonly archives = new Map<string, Promise<ArchivePolicies>>();

  constructor(private readonly db: DbOrTx) {}

  private content(setId: string): SetContent {
    return contentCache(sqliteOf(this.db)).get(setId, () => readContent(this.db, setId));
  }

  /** Whether the set has anything to evaluate: a policy attached to it, or a ready version. */
  hasPolicies(set: PolicySetRow): boolean {
    const { attached, versionId } = this.content(set.id);
    return attached.length > 0 || versionId !== null;
  }

  async evaluate(set: PolicySetRow): Promise<SetEvaluation> {
    const { attached, versionId } = this.content(set.id);
    if (versionId === null) return { set, policies: [...attached], error: null };
    // The set's kind and path choose what is read, so they are part of the key.
    const key = `${versionId}\n${set.kind}\n${set.policiesPath ?? ''}`;
    let read = this.archives.get(key);
    if (!read) {
      const row = this.db
        .select({ archive: policySetVersions.archive })
        .from(policySetVersions)
        .where(eq(policySetVersions.id, versionId))
        .get();
      read = readArchivePolicies(set, row?.archive ?? Buffer.alloc(0));
      if (this.archives.size >= ARCHIVE_CACHE) this.archives.delete(this.archives.keys().next().value as string);
      this.archives.set(key, read);
    }
    const fromArchive = await read;
    return { set, policies: [...attached, ...fromArchive.policies], error: fromArchive.error };
  }

  /** After `/_emulator/reset`: versions are gone with the store. */
  reset(): void {
    this.archives.clear();
  }
}
