import { parseArgs } from 'node:util';
import { z } from '@market/contracts';
import { baseEnvShape, loadConfig } from '@market/shared/config';
import { createDataSource, initializeDataSource } from '@market/shared/db';
import { DomainError } from '@market/shared/errors';
import { EventWriter } from '@market/shared/events';
import { Argon2Passwords } from '../adapters/argon2-passwords';
import { adminEnv, passwordCost } from '../config';
import { createAdmin } from '../application/create-admin';
import { adminMigrations } from '../persistence/migrations';
import { readPassword } from './read-password';

const USAGE = `usage: npm run admin:create -w @market/admin -- --username <username> [--nickname <nickname>] [--roles <role,role>]
  The password is read from ADMIN_PASSWORD, or from stdin (typed without echo, or piped).
  Roles: super_admin, reviewer, customer_service, finance, auditor (none: only its own account).
  On success the new admin's id is printed.
`;

const cliEnv = {
  NODE_ENV: baseEnvShape.NODE_ENV,
  DATABASE_URL: baseEnvShape.DATABASE_URL,
  DB_SCHEMA: z.string().default('admin'),
  ADMIN_PASSWORD_MEMORY_KIB: adminEnv.ADMIN_PASSWORD_MEMORY_KIB,
  ADMIN_PASSWORD_PASSES: adminEnv.ADMIN_PASSWORD_PASSES,
};

function parseCommandLine(): { username: string; nickname?: string; roles: string[] } | null {
  try {
    const { values } = parseArgs({
      options: { username: { type: 'string' }, nickname: { type: 'string' }, roles: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    const roles = values.roles ? values.roles.split(',').map((role) => role.trim()).filter(Boolean) : [];
    return values.username ? { username: values.username, nickname: values.nickname, roles } : null;
  } catch {
    // parseArgs' message repeats the offending argument, which may be a password typed by mistake
    return null;
  }
}

async function main(): Promise<number> {
  const args = parseCommandLine();
  if (!args) {
    process.stderr.write(USAGE);
    return 2;
  }
  const config = loadConfig(cliEnv);
  const password = await readPassword();
  const db = createDataSource({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, entities: [], migrations: adminMigrations });
  await initializeDataSource(db, config.DB_SCHEMA);
  try {
    // The audit event waits in the outbox; the running admin service's relay publishes it.
    const admin = await createAdmin(
      { db, events: new EventWriter('admin', config.DB_SCHEMA), passwords: new Argon2Passwords(passwordCost(config)) },
      { username: args.username, nickname: args.nickname ?? args.username, password, roles: args.roles },
    );
    process.stdout.write(`${admin.id}\n`);
    return 0;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // a refusal (a taken username, an invalid field) is told as such; anything else failed
    if (err instanceof DomainError) {
      const details = (err.details.errors ?? []).map((e) => `\n  ${e.path}: ${e.message}`).join('');
      process.stderr.write(`admin:create: ${err.message}${details}\n`);
    } else {
      process.stderr.write(`admin:create failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    process.exitCode = 1;
  },
);
