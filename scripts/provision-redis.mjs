#!/usr/bin/env node
// Provisions Redis's users (ADR 0054): one per service and one for the gateway, each restricted to
// its own keys (`<prefix><process>:*`, the gateway's rate limits `<prefix>rl:*`), the keys the
// gateway trusts (`auth:*`: revocations, blocks, admin sessions and roles) writable only by
// identity and admin and readable by the gateway and notify, and no dangerous or administrative
// command. The default user stays the operator's. Needs `npm run build` (the rules come from the kit).
//   Live, idempotent (npm start runs it):
//     REDIS_ADMIN_URL=redis://:…@redis:6379 MARKET_REDIS_PASSWORDS=identity:…,…,gateway:… node scripts/provision-redis.mjs
//   As an ACL file for `redis-server --aclfile` (compose, Kubernetes), with the default user's
//   password from REDIS_PASSWORD; passwords are written as SHA-256 hashes:
//     node scripts/provision-redis.mjs --acl-file /acl/users.acl
// Each process then connects with REDIS_URL=redis://market_<process>:<password>@redis:6379.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createClient } from '@redis/client';
import { passwordList, redisDevPassword } from './lib/provision.mjs';

const require = createRequire(import.meta.url);
const { REDIS_PROCESSES, redisAclRules, redisUserOf } = require('../packages/shared/dist/redis/index.js');

const env = process.env;
// development only by name (ADR 0055): anything else needs real passwords
const production = env.NODE_ENV !== 'development';
const prefix = env.REDIS_KEY_PREFIX ?? '';
const userPrefix = env.MARKET_REDIS_USER_PREFIX ?? 'market_';
const passwords = passwordList(env.MARKET_REDIS_PASSWORDS);

function passwordOf(process) {
  if (passwords[process]) return passwords[process];
  if (production) throw new Error(`MARKET_REDIS_PASSWORDS has no password for ${process}`);
  return redisDevPassword(process);
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const fileIndex = process.argv.indexOf('--acl-file');

if (fileIndex >= 0) {
  const file = process.argv[fileIndex + 1];
  if (!file) throw new Error('--acl-file needs a path');
  if (!env.REDIS_PASSWORD) throw new Error('REDIS_PASSWORD (the default user\'s, the operator\'s) is required for an ACL file');
  const lines = [
    `user default on #${sha256(env.REDIS_PASSWORD)} ~* &* +@all`,
    ...REDIS_PROCESSES.map((p) => ['user', redisUserOf(p, userPrefix), 'on', `#${sha256(passwordOf(p))}`, ...redisAclRules(p, prefix)].join(' ')),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o644 });
  console.log(`wrote ${REDIS_PROCESSES.length} Redis users and the default user to ${file}`);
} else {
  const client = createClient({ url: env.REDIS_ADMIN_URL ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await client.connect();
  try {
    for (const p of REDIS_PROCESSES) {
      // `reset` first: a rule removed from the kit is removed from the user too.
      await client.sendCommand(['ACL', 'SETUSER', redisUserOf(p, userPrefix), 'reset', 'on', `>${passwordOf(p)}`, ...redisAclRules(p, prefix)]);
    }
    // Kept across restarts where the server has an ACL file; otherwise run this again after one.
    const { aclfile } = await client.configGet('aclfile');
    if (aclfile) await client.sendCommand(['ACL', 'SAVE']);
    console.log(`provisioned ${REDIS_PROCESSES.length} Redis users${aclfile ? ` (saved to ${aclfile})` : ''}`);
  } finally {
    await client.quit();
  }
}
