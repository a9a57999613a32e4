import type { Statement } from 'better-sqlite3';
import { sqliteOf, type Db } from '../../store/store.js';

/**
 * Which organization an id-addressed resource belongs to, by the prefix of its id. A write
 * addressed by id alone (`DELETE /teams/:id`, `POST /teams/:id/relationships/users`) names no
 * organization in its path and, after a delete, the resource is gone; the recorder asks here
 * before the handler runs. Each query reads one row by primary key.
 */
const OWNER_QUERIES: Record<string, string> = {
  ws: 'SELECT organization_id FROM workspaces WHERE id = @id',
  team: 'SELECT organization_id FROM teams WHERE id = @id',
  prj: 'SELECT organization_id FROM projects WHERE id = @id',
  apool: 'SELECT organization_id FROM agent_pools WHERE id = @id',
  task: 'SELECT organization_id FROM run_tasks WHERE id = @id',
  varset: 'SELECT organization_id FROM variable_sets WHERE id = @id',
  ou: 'SELECT organization_id FROM organization_memberships WHERE id = @id',
  sshkey: 'SELECT organization_id FROM ssh_keys WHERE id = @id',
  oc: 'SELECT organization_id FROM oauth_clients WHERE id = @id',
  tag: 'SELECT organization_id FROM tags WHERE id = @id',
  mod: 'SELECT organization_id FROM registry_modules WHERE id = @id',
  nocode: 'SELECT organization_id FROM no_code_modules WHERE id = @id',
  ot: 'SELECT c.organization_id FROM oauth_tokens t JOIN oauth_clients c ON c.id = t.oauth_client_id WHERE t.id = @id',
  tws: 'SELECT w.organization_id FROM team_workspaces a JOIN workspaces w ON w.id = a.workspace_id WHERE a.id = @id',
  tprj: 'SELECT p.organization_id FROM team_projects a JOIN projects p ON p.id = a.project_id WHERE a.id = @id',
  rt: 'SELECT w.organization_id FROM run_triggers r JOIN workspaces w ON w.id = r.workspace_id WHERE r.id = @id',
  wstask: 'SELECT w.organization_id FROM workspace_tasks t JOIN workspaces w ON w.id = t.workspace_id WHERE t.id = @id',
  // Workspace variables and variable-set variables share the `var-` prefix.
  var: `SELECT w.organization_id FROM workspace_variables v JOIN workspaces w ON w.id = v.workspace_id WHERE v.id = @id
        UNION ALL SELECT s.organization_id FROM variable_set_variables v JOIN variable_sets s ON s.id = v.set_id WHERE v.id = @id`,
  // Team tokens belong to the team's organization; user tokens to none.
  at: `SELECT coalesce(t.organization_id, team.organization_id) AS organization_id
        FROM platform_tokens t LEFT JOIN teams team ON team.id = t.team_id WHERE t.id = @id`,
};

const statements = new WeakMap<Db, Map<string, Statement>>();

const prefixOf = (id: string) => id.slice(0, id.indexOf('-'));

/** Whether `value` has the shape of an id this table knows (the innermost one names the resource a write is about). */
export const isOwnedId = (value: string): boolean => Object.hasOwn(OWNER_QUERIES, prefixOf(value));

export function organizationOfId(db: Db, id: string): string | undefined {
  const prefix = prefixOf(id);
  const query = OWNER_QUERIES[prefix];
  if (!query) return undefined;
  let prepared = statements.get(db);
  if (!prepared) statements.set(db, (prepared = new Map<string, Statement>()));
  let statement = prepared.get(prefix);
  if (!statement) prepared.set(prefix, (statement = sqliteOf(db).prepare(query)));
  const row = statement.get({ id }) as { organization_id: string | null } | undefined;
  return row?.organization_id ?? undefined;
}
