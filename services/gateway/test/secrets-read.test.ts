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
describe('the secrets each process reads', () => {
  it.each([...SERVICE_NAMES, 'gateway'] as const)('%s reads exactly the secrets docs/configuration.md names it for', (name) => {
    const shape = name === 'gateway' ? gatewayEnvShape : { ...baseEnvShape, ...DEFINITIONS[name].env };
    const reads = SECRET_VARIABLES.filter((variable) => variable in shape);
    expect(reads).toEqual(SECRET_VARIABLES.filter((variable) => readmeReaders(variable).includes(name)));
  });
});
