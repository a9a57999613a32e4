import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { inList } from '../../store/sql-lists.js';
import { oauthClientProjects, oauthClients, oauthTokens } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';

export type OAuthClientRow = typeof oauthClients.$inferSelect;
export type OAuthTokenRow = typeof oauthTokens.$inferSelect;

export function insertClient(db: DbOrTx, client: OAuthClientRow, token: OAuthTokenRow, projectIds: readonly string[]): void {
  db.transaction((tx) => {
    tx.insert(oauthClients).values(client).run();
    tx.insert(oauthTokens).values(token).run();
    addProjects(tx, client.id, projectIds, client.createdAt);
  });
}

export const findClient = (db: DbOrTx, id: string) => db.select().from(oauthClients).where(eq(oauthClients.id, id)).get();
export const findToken = (db: DbOrTx, id: string) => db.select().from(oauthTokens).where(eq(oauthTokens.id, id)).get();
export const tokensOf = (db: DbOrTx, clientId: string) =>
  db.select().from(oauthTokens).where(eq(oauthTokens.oauthClientId, clientId)).all();
export const clientsOf = (db: DbOrTx, organizationId: string) =>
  db.select().from(oauthClients).where(eq(oauthClients.organizationId, organizationId)).orderBy(asc(oauthClients.createdAt)).all();

/** The projects a connection is attached to, in the order they were attached. */
export const projectIdsOf = (db: DbOrTx, clientId: string): string[] =>
  db
    .select({ projectId: oauthClientProjects.projectId })
    .from(oauthClientProjects)
    .where(eq(oauthClientProjects.oauthClientId, clientId))
    .orderBy(asc(oauthClientProjects.createdAt), asc(oauthClientProjects.projectId))
    .all()
    .map((row) => row.projectId);

/** Attaches projects; one already attached stays as it was. */
export function addProjects(db: DbOrTx, clientId: string, projectIds: readonly string[], at: Date): void {
  if (projectIds.length === 0) return;
  db.insert(oauthClientProjects)
    .values(projectIds.map((projectId) => ({ oauthClientId: clientId, projectId, createdAt: at })))
    .onConflictDoNothing()
    .run();
}

export function removeProjects(db: DbOrTx, clientId: string, projectIds: readonly string[]): void {
  if (projectIds.length === 0) return;
  db.delete(oauthClientProjects)
    .where(and(eq(oauthClientProjects.oauthClientId, clientId), inList(oauthClientProjects.projectId, projectIds)))
    .run();
}

/** Changes the connection's columns and, when `projectIds` is given, replaces its projects; all or nothing. */
export function updateClient(
  db: DbOrTx,
  id: string,
  changes: Partial<OAuthClientRow>,
  projectIds: readonly string[] | undefined,
  at: Date,
): void {
  db.transaction((tx) => {
    updateRows(tx, oauthClients, changes, eq(oauthClients.id, id));
    if (projectIds !== undefined) {
      tx.delete(oauthClientProjects).where(eq(oauthClientProjects.oauthClientId, id)).run();
      addProjects(tx, id, projectIds, at);
    }
  });
}

/** Every token of an organization's connections, oldest first. */
export const tokensOfOrganization = (db: DbOrTx, organizationId: string): OAuthTokenRow[] =>
  db
    .select({ token: oauthTokens })
    .from(oauthTokens)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthTokens.oauthClientId))
    .where(eq(oauthClients.organizationId, organizationId))
    .orderBy(asc(oauthTokens.createdAt), asc(oauthTokens.id))
    .all()
    .map((row) => row.token);

export function updateToken(db: DbOrTx, id: string, changes: Partial<OAuthTokenRow>): void {
  updateRows(db, oauthTokens, changes, eq(oauthTokens.id, id));
}

export function deleteToken(db: DbOrTx, id: string): void {
  db.delete(oauthTokens).where(eq(oauthTokens.id, id)).run();
}

/** Deletes the connection; its tokens and project attachments go with it. */
export function deleteClient(db: DbOrTx, id: string): void {
  db.delete(oauthClients).where(eq(oauthClients.id, id)).run();
}
