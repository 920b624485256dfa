import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Services hold the kit's Db/Tx/Queryable; TypeORM stays behind the kit (ServiceContext, migrations).
const SERVICES = path.resolve(__dirname, '../../../services');
const TYPEORM_IMPORT = /from\s+['"]typeorm(\/[^'"]*)?['"]|require\(\s*['"]typeorm/;
// TypeORM's names for what the kit calls Tx and Db: a service using them reaches past the kit's types.
const ENTITY_MANAGER = /\bEntityManager\b/;
const MANAGER_PROPERTY = /\.manager\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|cts)$/.test(entry.name) ? [full] : [];
  });
}

function serviceFilesMatching(pattern: RegExp): string[] {
  return readdirSync(SERVICES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const src = path.join(SERVICES, entry.name, 'src');
      try {
        return sourceFiles(src);
      } catch {
        return [];
      }
    })
    .filter((file) => pattern.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(SERVICES, file));
}

describe('service sources', () => {
  it('no file under services/*/src imports typeorm', () => {
    expect(serviceFilesMatching(TYPEORM_IMPORT)).toEqual([]);
  });

  it('no file under services/*/src names EntityManager or uses .manager', () => {
    expect(serviceFilesMatching(ENTITY_MANAGER)).toEqual([]);
    expect(serviceFilesMatching(MANAGER_PROPERTY)).toEqual([]);
  });

  it('the scan recognises the import forms it forbids', () => {
    expect(TYPEORM_IMPORT.test(`import type { DataSource } from 'typeorm';`)).toBe(true);
    expect(TYPEORM_IMPORT.test(`import { QueryRunner } from "typeorm/query-runner/QueryRunner";`)).toBe(true);
    expect(TYPEORM_IMPORT.test(`import type { Tx } from '@market/shared/db';`)).toBe(false);
  });

  it('the scan recognises the names it forbids', () => {
    expect(ENTITY_MANAGER.test(`import type { EntityManager } from '@market/shared';`)).toBe(true);
    expect(ENTITY_MANAGER.test(`async function f(manager: EntityManager) {}`)).toBe(true);
    expect(MANAGER_PROPERTY.test(`await findPayment(deps.db.manager, id);`)).toBe(true);
    expect(MANAGER_PROPERTY.test(`await deps.db.transaction(async (tx) => findPayment(tx, id));`)).toBe(false);
  });
});
