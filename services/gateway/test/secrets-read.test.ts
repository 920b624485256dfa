import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES } from '@market/contracts';
import { baseEnvShape } from '@market/shared/config';
import { SECRET_VARIABLES } from '@market/shared/testing';
import { DEFINITIONS } from '@market/testkit';
import { gatewayEnvShape } from '../src/config';

const configurationPage = readFileSync(path.resolve(__dirname, '../../../docs/configuration.md'), 'utf8');

/** "used by" of a configuration row in docs/configuration.md, with `services` standing for every service. */
function readmeReaders(variable: string): string[] {
  const row = configurationPage.split('\n').find((line) => line.startsWith(`| \`${variable}\` |`))!;
  return row
    .split('|')[3]!
    .split(',')
    .map((s) => s.trim())
    .flatMap((reader) => (reader === 'services' ? [...SERVICE_NAMES] : [reader]));
}

/**
 * The configuration table in docs/configuration.md, which docker-compose.yml follows (packages/shared's registry
 * test), says which process reads which secret; here it is held against the environment each
 * process actually parses, so neither can drift from the code.
 */
/**
 * The keys of a process's own Kubernetes Secret, as deploy/k8s/secrets.keys lists them (`name:`
 * then one indented key a line); packages/shared's deployment test holds each Deployment to it.
 */
function kubernetesSecretKeys(name: string): string[] {
  const lines = readFileSync(path.resolve(__dirname, '../../../deploy/k8s/secrets.keys'), 'utf8').split('\n');
  const start = lines.indexOf(`${name}-secrets:`);
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('  '));
  return lines.slice(start + 1, end).map((line) => line.trim());
}

/** A provider's credential: whoever holds it can send messages or move money as this marketplace. */
const PROVIDER_CREDENTIAL = /(_ACCESS_KEY_ID|_ACCESS_KEY_SECRET|_SECRET_ID|_SECRET_KEY|_PRIVATE_KEY|_API_V3_KEY)$/;
/** Named in the layout ahead of the per-service key pairs that replace the shared assertion secret (ADR 0055). */
const INTERNAL_KEYS = ['INTERNAL_SIGNING_KEY', 'INTERNAL_SIGNING_KEY_ID', 'INTERNAL_PUBLIC_KEYS'];

describe('the secrets each process reads', () => {
  it.each([...SERVICE_NAMES, 'gateway'] as const)('%s reads exactly the secrets docs/configuration.md names it for', (name) => {
    const shape = name === 'gateway' ? gatewayEnvShape : { ...baseEnvShape, ...DEFINITIONS[name].env };
    const reads = SECRET_VARIABLES.filter((variable) => variable in shape);
    expect(reads).toEqual(SECRET_VARIABLES.filter((variable) => readmeReaders(variable).includes(name)));
  });

  it.each([...SERVICE_NAMES, 'gateway'] as const)("%s's Kubernetes Secret holds exactly the secrets and connection URLs its configuration reads", (name) => {
    const shape = name === 'gateway' ? gatewayEnvShape : { ...baseEnvShape, ...DEFINITIONS[name].env };
    const connections = ['DATABASE_URL', 'AMQP_URL', 'REDIS_URL'].filter((variable) => variable in shape);
    const secrets = Object.keys(shape).filter(
      (variable) => variable !== 'INTERNAL_ASSERTION_SECRET' && ((SECRET_VARIABLES as readonly string[]).includes(variable) || PROVIDER_CREDENTIAL.test(variable)),
    );
    const keys = kubernetesSecretKeys(name);
    expect([...keys].sort()).toEqual([...new Set([...connections, ...INTERNAL_KEYS, ...secrets])].sort());
    // every key is one the process reads, or one of the per-service key pair's names
    expect(keys.filter((key) => !(key in shape) && !INTERNAL_KEYS.includes(key))).toEqual([]);
  });
});
