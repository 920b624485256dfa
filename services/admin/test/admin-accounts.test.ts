import { spawn } from 'node:child_process';
import path from 'node:path';
import { createDataSource, initializeDataSource } from '@market/shared/db';
import { EventWriter } from '@market/shared/events';
import { Conflict, DomainError, InvalidInput } from '@market/shared/errors';
import { dropSchemas, resolveInfra, uniqueName } from '@market/shared/testing';
import { api, startStack, type Stack } from '@market/testkit';
import { Argon2Passwords, MINIMUM_PASSWORD_COST } from '../src/adapters/argon2-passwords';
import { bootstrapFirstAdmin } from '../src/application/bootstrap-first-admin';
import { createAdmin } from '../src/application/create-admin';
import { adminMigrations } from '../src/persistence/migrations';
import { loginToken, uniqueUsername } from './helpers';

const passwords = new Argon2Passwords(MINIMUM_PASSWORD_COST);

describe('admin accounts: bootstrap and admin:create', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin'], serviceEnv: { admin: { ADMIN_BOOTSTRAP_USERNAME: 'root.admin', ADMIN_BOOTSTRAP_PASSWORD: 'bootstrap-password-for-tests' } } });
  });
  afterAll(() => stack.stop());

  const deps = () => ({ db: stack.services.admin!.ctx.db, events: stack.services.admin!.ctx.events, passwords });
  const refusal = (promise: Promise<unknown>) => promise.then(() => null, (err: unknown) => err as DomainError);

  it('creates the first admin from ADMIN_BOOTSTRAP_USERNAME / _PASSWORD, once', async () => {
    const rows = await stack.services.admin!.ctx.db.query(`SELECT username, nickname, password_hash FROM admin_users`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ username: 'root.admin', nickname: 'root.admin' });
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(await bootstrapFirstAdmin(deps(), { username: 'another', password: 'another-password-1' })).toBeNull();
    expect(await loginToken(api(stack.url), 'root.admin', 'bootstrap-password-for-tests')).toEqual(expect.any(String));
  });

  it('admin:create adds an admin that can log in, with its creation in the outbox', async () => {
    const username = uniqueUsername('alice');
    const admin = await createAdmin(deps(), { username, nickname: 'Alice', password: 'a-long-password-1' });
    expect(admin).toMatchObject({ username, nickname: 'Alice', status: 'active' });
    expect(await loginToken(api(stack.url), username, 'a-long-password-1')).toEqual(expect.any(String));
    const [event] = await stack.services.admin!.ctx.db.query(
      `SELECT payload FROM outbox WHERE type = 'audit.recorded' AND payload->'data'->>'biz_id' = $1`,
      [admin.id],
    );
    expect(event.payload.data).toMatchObject({ action: 'admin_user.create', actor_type: 'system', detail: { username, nickname: 'Alice' } });
    expect(JSON.stringify(event.payload)).not.toContain('a-long-password-1');
  });

  it('admin:create refuses a taken username, also when two try at once', async () => {
    const username = uniqueUsername('dup');
    await createAdmin(deps(), { username, nickname: 'First', password: 'a-long-password-1' });
    const again = await refusal(createAdmin(deps(), { username, nickname: 'Second', password: 'a-long-password-2' }));
    expect(again).toBeInstanceOf(Conflict);
    expect(again).toMatchObject({ code: 'CONFLICT', message: `username ${username} is already taken` });

    const racing = uniqueUsername('race');
    const results = await Promise.allSettled(
      [1, 2, 3].map((i) => createAdmin(deps(), { username: racing, nickname: `N${i}`, password: 'a-long-password-1' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [{ count }] = await stack.services.admin!.ctx.db.query(`SELECT count(*)::int AS count FROM admin_users WHERE username = $1`, [racing]);
    expect(count).toBe(1);
  });

  it('admin:create validates the username and the password length', async () => {
    const cases = [
      { input: { username: 'ab', nickname: 'x', password: 'a-long-password-1' }, path: 'username' },
      { input: { username: 'Upper_Case', nickname: 'x', password: 'a-long-password-1' }, path: 'username' },
      { input: { username: 'has space', nickname: 'x', password: 'a-long-password-1' }, path: 'username' },
      { input: { username: 'x'.repeat(33), nickname: 'x', password: 'a-long-password-1' }, path: 'username' },
      { input: { username: 'fine.name-1', nickname: 'x', password: 'short-pw' }, path: 'password' },
      { input: { username: 'fine.name-1', nickname: '  ', password: 'a-long-password-1' }, path: 'nickname' },
    ];
    for (const { input, path: field } of cases) {
      const err = await refusal(createAdmin(deps(), input));
      expect(err).toBeInstanceOf(InvalidInput);
      expect(err!.details.errors!.map((e) => e.path)).toEqual([field]);
      expect(JSON.stringify(err!.details.errors)).not.toContain(input.password);
    }
  });

  it('the admin:create command reads the password from stdin, never from argv, and prints the new id', async () => {
    const username = uniqueUsername('cli');
    const { DATABASE_URL } = await resolveInfra();
    const run = (args: string[], stdin: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        // the built command operators run (`npm run admin:create`); `npm test` builds before it tests.
        // Compiling the source with tsx at each of the three runs took most of the test's 30 s on a loaded CI machine.
        const child = spawn(process.execPath, [path.join(__dirname, '../dist/cli/create-admin.js'), ...args], {
          env: { ...process.env, DATABASE_URL, DB_SCHEMA: stack.services.admin!.ctx.schema, ADMIN_PASSWORD: '', NODE_OPTIONS: '' },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(stdin);
      });

    const created = await run(['--username', username, '--nickname', 'Cli Admin'], 'cli-password-0123\n');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    const [row] = await stack.services.admin!.ctx.db.query(`SELECT username, nickname FROM admin_users WHERE id = $1`, [id]);
    expect(row).toEqual({ username, nickname: 'Cli Admin' });
    expect(await loginToken(api(stack.url), username, 'cli-password-0123')).toEqual(expect.any(String));

    const duplicate = await run(['--username', username], 'cli-password-0123\n');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already taken');

    const argvPassword = await run(['--username', uniqueUsername('cli'), '--password=cli-password-0123'], '');
    expect(argvPassword.code).toBe(2);
    expect(argvPassword.stderr).not.toContain('cli-password-0123');
  }, 30_000);
});

describe('first-admin bootstrap racing replicas', () => {
  let db: ReturnType<typeof createDataSource>;
  let schema: string;

  beforeAll(async () => {
    schema = uniqueName('t_admin_boot');
    db = createDataSource({ url: (await resolveInfra()).DATABASE_URL, schema, entities: [], migrations: adminMigrations });
    await initializeDataSource(db, schema);
  });
  afterAll(async () => {
    await db.destroy();
    await dropSchemas((await resolveInfra()).DATABASE_URL, [schema]);
  });

  it('creates exactly one admin when several replicas bootstrap at once, even with different usernames', async () => {
    const deps = { db, events: new EventWriter('admin', schema), passwords };
    const results = await Promise.all(
      ['boot_a', 'boot_b', 'boot_c', 'boot_d'].map((username) => bootstrapFirstAdmin(deps, { username, password: 'bootstrap-password-1' })),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM admin_users`);
    expect(count).toBe(1);
    const [{ events }] = await db.query(`SELECT count(*)::int AS events FROM outbox WHERE payload->'data'->>'action' = 'admin_user.bootstrap'`);
    expect(events).toBe(1);
  });
});
