import { randomBytes } from 'node:crypto';
import type { AdminRole } from '@market/contracts';
import { mintToken, type api, type Component, type Stack } from '@market/testkit';
import { Argon2Passwords } from '../src/adapters/argon2-passwords';
import { createAdmin } from '../src/application/create-admin';

export type Client = ReturnType<typeof api>;

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
    { db: ctx.db, events: ctx.events, passwords: new Argon2Passwords() },
    { username, nickname: overrides.nickname ?? username, password, roles: overrides.roles ?? ['super_admin'] },
  );
  return { ...admin, password };
}

export async function captcha(client: Client): Promise<{ captcha_id: string; dev_text: string }> {
  const res = await client.get('/api/admin/auth/captcha');
  if (res.status !== 200) throw new Error(`captcha answered ${res.status}`);
  return res.body;
}

export async function login(client: Client, username: string, password: string) {
  const { captcha_id, dev_text } = await captcha(client);
  return client.post('/api/admin/auth/login', { username, password, captcha_id, captcha_code: dev_text });
}

export async function loginToken(client: Client, username: string, password: string): Promise<string> {
  const res = await login(client, username, password);
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

export { eventually } from '@market/testkit';
