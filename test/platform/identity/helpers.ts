import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../../src/core/ids.js';
import { organizationMemberships, teamMembers } from '../../../src/store/tables.js';
import { organizations, teams, users } from '../../../src/store/tables.js';
import { and, eq } from 'drizzle-orm';
import { platform, type TestServer } from '../../helpers/app.js';

/** Writes `seed` to a fresh temporary file and returns its path, for `UNDERSTUDY_SEED`. */
export function writeSeed(seed: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'understudy-seed-')), 'seed.json');
  writeFileSync(path, JSON.stringify(seed));
  return path;
}

/** Creates a user through the admin API and gives it a token; returns both. */
export async function createUserWithToken(server: TestServer, username: string): Promise<{ id: string; token: string }> {
  const created = await platform(server, 'POST', '/admin/users', {
    body: { data: { type: 'users', attributes: { username, email: `${username}@example.test` } } },
  });
  if (created.status !== 201) throw new Error(`creating ${username}: ${created.status} ${JSON.stringify(created.body)}`);
  const token = await platform(server, 'POST', `/users/${created.body.data.id}/authentication-tokens`, {
    body: { data: { type: 'authentication-tokens', attributes: { description: 'test' } } },
  });
  if (token.status !== 201) throw new Error(`token for ${username}: ${token.status}`);
  return { id: created.body.data.id, token: token.body.data.attributes.token };
}

/** The id of the team called `name` in `organization`, looked up with the admin token. */
export async function teamId(server: TestServer, organization: string, name: string): Promise<string> {
  const { body } = await platform(server, 'GET', `/organizations/${organization}/teams?filter%5Bnames%5D=${encodeURIComponent(name)}`);
  const id = body?.data?.[0]?.id;
  if (typeof id !== 'string') throw new Error(`no team ${organization}/${name}`);
  return id;
}

/**
 * Gives `username` an invited (not accepted) membership of `organization`, on `teamName` if
 * given. Invitations belong to the memberships API, and acceptance has no API at all, so the
 * tests write the row directly; every assertion still goes through HTTP.
 */
export function inviteDirectly(server: TestServer, organization: string, username: string, teamName?: string): string {
  const { db } = server.app.runtime.store;
  const org = db.select().from(organizations).where(eq(organizations.name, organization)).get();
  const user = db.select().from(users).where(eq(users.username, username)).get();
  if (!org || !user) throw new Error(`no organization ${organization} or user ${username}`);
  const id = newId('ou');
  const at = server.app.runtime.clock.now();
  db.insert(organizationMemberships).values({ id, organizationId: org.id, userId: user.id, status: 'invited', createdAt: at }).run();
  if (teamName) {
    const team = db
      .select()
      .from(teams)
      .where(and(eq(teams.organizationId, org.id), eq(teams.name, teamName)))
      .get();
    if (!team) throw new Error(`no team ${teamName}`);
    db.insert(teamMembers).values({ teamId: team.id, userId: user.id, createdAt: at }).run();
  }
  return id;
}

/** GET with a raw body, for byte-for-byte comparisons. */
export async function rawGet(server: TestServer, path: string, token: string | null): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.baseUrl}/api/v2${path}`, {
    headers: { accept: 'application/vnd.api+json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: response.status, text: await response.text() };
}
