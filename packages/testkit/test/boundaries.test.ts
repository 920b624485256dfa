import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs the CI check (.dependency-cruiser.cjs) over `dirs` of the tree at `cwd`; its violations. */
async function cruise(cwd: string, dirs: string[]): Promise<Violation[]> {
  const args = [DEPCRUISE, '--config', CONFIG, '--output-type', 'json', ...dirs];
  // depcruise exits non-zero when it finds violations; the JSON on stdout is the answer either way.
  const { stdout } = await run(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((err) => err);
  return JSON.parse(stdout).summary.violations;
}

function write(root: string, file: string, text: string) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

function workspace(root: string, dir: string, pkg: Record<string, unknown>) {
  write(root, `${dir}/package.json`, JSON.stringify(pkg));
  mkdirSync(path.join(root, 'node_modules/@market'), { recursive: true });
  symlinkSync(path.join(root, dir), path.join(root, 'node_modules', pkg.name as string));
}

const source = (file: string) => ({ '@market/source': `./src/${file}.ts` });

describe('workspace boundaries (dependency-cruiser)', () => {
  let fixture: string;

  beforeAll(() => {
    // A small monorepo laid out like this one, with one planted violation per rule next to allowed imports.
    fixture = mkdtempSync(path.join(tmpdir(), 'boundaries-'));
    write(fixture, 'package.json', JSON.stringify({ name: 'fixture', private: true, workspaces: ['packages/*', 'services/*'] }));
    mkdirSync(path.join(fixture, 'node_modules'));
    symlinkSync(path.join(ROOT, 'node_modules/zod'), path.join(fixture, 'node_modules/zod'), 'dir');
    workspace(fixture, 'packages/contracts', { name: '@market/contracts', exports: { '.': source('index') }, dependencies: { zod: '*' } });
    workspace(fixture, 'packages/shared', { name: '@market/shared', exports: { './*': { '@market/source': './src/*/index.ts' } } });
    workspace(fixture, 'services/orders', {
      name: '@market/orders',
      exports: { './service': source('service') },
      dependencies: { '@market/contracts': '*', '@market/shared': '*' },
    });
    workspace(fixture, 'services/catalog', { name: '@market/catalog', dependencies: { '@market/contracts': '*', '@market/orders': '*' } });
    workspace(fixture, 'packages/testkit', { name: '@market/testkit', exports: { '.': source('index') }, dependencies: { '@market/orders': '*' } });
    write(fixture, 'packages/contracts/src/index.ts', "import { z } from 'zod';\nimport { readFileSync } from 'node:fs';\nexport const id = z.string();\nexport const read = readFileSync;\n");
    write(fixture, 'services/orders/src/service.ts', "import { id } from '@market/contracts';\nexport const ordersService = id;\n");
    write(fixture, 'services/orders/src/persistence/rows.ts', 'export const rows = 1;\n');
    write(fixture, 'packages/shared/src/db/index.ts', 'export const db = 1;\n');
    write(fixture, 'packages/shared/src/errors/index.ts', 'export const NotFound = 1;\n');
    write(fixture, 'services/orders/src/http/statuses.ts', 'export const statuses = 1;\n');
    // layers inside a service: the domain is pure, the application knows no HTTP
    write(fixture, 'services/orders/src/domain/rule.ts', "import { NotFound } from '@market/shared/errors';\nexport { rows } from '../persistence/rows';\nexport const rule = NotFound;\n");
    write(fixture, 'services/orders/src/domain/io.ts', "export { db } from '@market/shared/db';\n");
    write(fixture, 'services/orders/src/application/use-case.ts', "export { rule } from '../domain/rule';\nexport { statuses } from '../http/statuses';\n");
    write(fixture, 'services/catalog/src/allowed.ts', "import { id } from '@market/contracts';\nexport const allowed = id;\n");
    write(fixture, 'services/catalog/src/by-path.ts', "export { ordersService } from '../../orders/src/service';\n");
    write(fixture, 'services/catalog/src/by-name.ts', "export { ordersService } from '@market/orders/service';\n");
    write(fixture, 'services/catalog/test/support.ts', "export { started } from '@market/testkit';\n");
    write(fixture, 'packages/testkit/src/index.ts', "export { ordersService } from '@market/orders/service';\nexport const started = 1;\n");
    write(fixture, 'packages/testkit/src/past-entry.ts', "export { rows } from '@market/orders/src/persistence/rows';\n");
    write(fixture, 'packages/testkit/src/undeclared.ts', "export { allowed } from '@market/catalog/src/allowed';\n");
    write(fixture, 'services/orders/src/undeclared.ts', "export { started } from '@market/testkit';\n");
  });

  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('names every planted violation, and only those', async () => {
    const found = (await cruise(fixture, ['packages', 'services'])).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();

    expect(found).toEqual(
      [
        'contracts-are-zod-only: packages/contracts/src/index.ts → fs',
        'domain-is-pure: services/orders/src/domain/rule.ts → services/orders/src/persistence/rows.ts',
        'domain-does-no-io: services/orders/src/domain/io.ts → node_modules/@market/shared/src/db/index.ts',
        'application-knows-no-http: services/orders/src/application/use-case.ts → services/orders/src/http/statuses.ts',
        'no-relative-import-across-workspaces: services/catalog/src/by-path.ts → services/orders/src/service.ts',
        'no-unresolvable: packages/testkit/src/past-entry.ts → @market/orders/src/persistence/rows',
        'service-imports-only-contracts-and-kit: services/catalog/src/by-name.ts → node_modules/@market/orders/src/service.ts',
        'service-imports-only-contracts-and-kit: services/orders/src/undeclared.ts → node_modules/@market/testkit/src/index.ts',
        'workspace-dependency-declared: packages/testkit/src/undeclared.ts → node_modules/@market/catalog/src/allowed.ts',
        'workspace-dependency-declared: services/orders/src/undeclared.ts → node_modules/@market/testkit/src/index.ts',
      ].sort(),
    );
  });

  it('finds nothing in the real tree', async () => {
    expect(await cruise(ROOT, ['packages', 'services', 'scripts'])).toEqual([]);
  });
});
