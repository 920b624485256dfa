import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * RSA-2048 key pairs for the payment simulators. Making one costs a tenth to half a second of CPU,
 * and the simulators need two or three per start in dozens of test files, so one test run
 * (`TEST_RUN`, set by scripts/jest-bounded.mjs, which deletes the file when the run ends) keeps the
 * pairs it made in a file of the temporary folder and every later file reuses them. Within a test
 * file each pair is handed out once, so two simulators of one file never share a key; without
 * `TEST_RUN` every pair is new.
 */
const poolFile = process.env.TEST_RUN ? path.join(tmpdir(), `market-simulator-keys-${process.env.TEST_RUN}.json`) : null;
let handedOut = 0;

function readPool(): string[] {
  try {
    return JSON.parse(readFileSync(poolFile!, 'utf8')) as string[];
  } catch {
    return [];
  }
}

export function simulatorKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  if (!poolFile) return generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pool = readPool();
  const index = handedOut++;
  if (index < pool.length) {
    const privateKey = createPrivateKey(pool[index]!);
    return { privateKey, publicKey: createPublicKey(privateKey) };
  }
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // Two workers may both add a pair at this index: the last rename wins, and each keeps using its own.
  const next = [...pool.slice(0, index), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()];
  const written = `${poolFile}.${process.pid}`;
  writeFileSync(written, JSON.stringify(next), { mode: 0o600 });
  renameSync(written, poolFile);
  return pair;
}
