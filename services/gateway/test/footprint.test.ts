import { execFileSync } from 'node:child_process';
import path from 'node:path';

// The gateway imports contracts and the kit's edge areas only (ADR 0023): loading it must not pull
// in the database, broker or upload stacks, whose start-up cost and attack surface it has no use for.
const FORBIDDEN = ['typeorm', 'pg', 'pg-pool', 'amqplib', 'reflect-metadata', 'multer', 'argon2', 'sharp'];

function packagesLoadedBy(entry: string): string[] {
  const script = `
    require(${JSON.stringify(entry)});
    const names = Object.keys(require.cache)
      .filter((file) => file.includes('/node_modules/'))
      .map((file) => file.split('/node_modules/').pop().split('/').slice(0, 2))
      .map(([scope, name]) => (scope.startsWith('@') ? scope + '/' + name : scope));
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: path.resolve(__dirname, '..'), encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

describe('gateway footprint', () => {
  it('loads no database, broker or upload package', () => {
    const loaded = packagesLoadedBy('./src/app.ts');
    expect(loaded).toContain('http-proxy-middleware');
    expect(loaded.filter((name) => FORBIDDEN.includes(name))).toEqual([]);
  });

  it('would see one if the kit pulled it in', () => {
    expect(packagesLoadedBy('../../packages/shared/src/db/index.ts')).toContain('typeorm');
  });
});
