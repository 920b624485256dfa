import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES } from '@market/contracts';
import { baseEnvShape } from '@market/shared/config';
import { SECRET_VARIABLES } from '@market/shared/testing';
import { DEFINITIONS } from '@market/testkit';
import { gatewayEnvShape } from '../src/config';

const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');

/** "used by" of a README configuration row, with `services` standing for every service. */
function readmeReaders(variable: string): string[] {
  const row = readme.split('\n').find((line) => line.startsWith(`| \`${variable}\` |`))!;
  return row
    .split('|')[3]!
    .split(',')
    .map((s) => s.trim())
    .flatMap((reader) => (reader === 'services' ? [...SERVICE_NAMES] : [reader]));
}

/**
 * The README's configuration table, which docker-compose.yml follows (packages/shared's registry
 * test), says which process reads which secret; here it is held against the environment each
 * process actually parses, so neither can drift from the code.
 */
describe('the secrets each process reads', () => {
  it.each([...SERVICE_NAMES, 'gateway'] as const)('%s reads exactly the secrets the README names it for', (name) => {
    const shape = name === 'gateway' ? gatewayEnvShape : { ...baseEnvShape, ...DEFINITIONS[name].env };
    const reads = SECRET_VARIABLES.filter((variable) => variable in shape);
    expect(reads).toEqual(SECRET_VARIABLES.filter((variable) => readmeReaders(variable).includes(name)));
  });
});
