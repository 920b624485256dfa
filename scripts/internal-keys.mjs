#!/usr/bin/env node
// `npm run keys:internal`: a fresh Ed25519 key pair for the gateway and each service (ADR 0053),
// printed as .env lines for docker-compose.yml: `INTERNAL_PUBLIC_KEYS` (every public key, for every
// process) and `<NAME>_INTERNAL_SIGNING_KEY` / `<NAME>_INTERNAL_SIGNING_KEY_ID` (one process's own).
// Rotation: run it with the current INTERNAL_PUBLIC_KEYS in the environment; the old public keys
// stay in the printed set, so assertions signed with the old keys are taken until every process
// runs on its new key (then drop the old ones). Build first (`npm run build`).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { generateInternalKeySet, parsePublicKeys } = createRequire(import.meta.url)(path.join(root, 'packages/shared/dist/auth/index.js'));

const version = process.argv[2] ?? new Date().toISOString().slice(0, 10);
const fresh = generateInternalKeySet(version);
const kept = process.env.INTERNAL_PUBLIC_KEYS ? JSON.parse(process.env.INTERNAL_PUBLIC_KEYS).keys : [];
if (kept.length > 0) parsePublicKeys(process.env.INTERNAL_PUBLIC_KEYS);
const newKids = new Set(JSON.parse(fresh.publicKeys).keys.map((key) => key.kid));
const publicKeys = { keys: [...kept.filter((key) => !newKids.has(key.kid)), ...JSON.parse(fresh.publicKeys).keys] };

const lines = [`INTERNAL_PUBLIC_KEYS='${JSON.stringify(publicKeys)}'`];
for (const [issuer, { key, kid }] of Object.entries(fresh.signing)) {
  lines.push(`${issuer.toUpperCase()}_INTERNAL_SIGNING_KEY='${key}'`, `${issuer.toUpperCase()}_INTERNAL_SIGNING_KEY_ID=${kid}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
