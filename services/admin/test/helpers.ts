import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import type { AdminRole } from '@market/contracts';
import { mintToken, type Client, type Component, type Stack } from '@market/testkit';
import { Argon2Passwords, MINIMUM_PASSWORD_COST } from '../src/adapters/argon2-passwords';
import { createAdmin } from '../src/application/create-admin';

export type { Client };

export function userToken(sub?: string, sid?: string) {
  return mintToken('user', sub, sid);
}

export function uniqueUsername(prefix = 'adm') {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

/** A new active admin, made by the same use case as `npm run admin:create`, in a stack's admin or an admin component. */
export async function newAdmin(where: Stack | Component, overrides: { username?: string; nickname?: string; roles?: AdminRole[] } = {}) {
  const username = overrides.username ?? uniqueUsername();
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const ctx = ('service' in where ? where.service : where.services.admin!).ctx;
  const admin = await createAdmin(
    { db: ctx.db, events: ctx.events, passwords: new Argon2Passwords(MINIMUM_PASSWORD_COST) },
    { username, nickname: overrides.nickname ?? username, password, roles: overrides.roles ?? ['super_admin'] },
  );
  return { ...admin, password };
}

/**
 * The text of every statement this process sends to Postgres while `work` runs whose values name one
 * of `ids`: what the services in the test's process cost in round trips for those rows, counted as
 * `scripts/lib/count-statements.cjs` counts them for the bench.
 */
export async function statementsNaming(ids: string[], work: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const query = PgClient.prototype.query;
  PgClient.prototype.query = function noted(this: PgClient, ...args: unknown[]) {
    const config = args[0] as string | { text?: string } | undefined;
    const text = typeof config === 'string' ? config : config?.text;
    const values = JSON.stringify(args[1] ?? null);
    if (text && ids.some((id) => values.includes(id))) sent.push(text);
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    PgClient.prototype.query = query;
  }
  return sent;
}

export { adminCaptcha as captcha, adminLogin as login, adminLoginToken as loginToken, eventually } from '@market/testkit';
