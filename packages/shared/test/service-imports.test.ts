import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Services hold the kit's Db/Tx/Queryable; TypeORM stays behind the kit (ServiceContext, migrations).
const SERVICES = path.resolve(__dirname, '../../../services');
const TYPEORM_IMPORT = /from\s+['"]typeorm(\/[^'"]*)?['"]|require\(\s*['"]typeorm/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|cts)$/.test(entry.name) ? [full] : [];
  });
}

function filesImportingTypeorm(): string[] {
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
    .filter((file) => TYPEORM_IMPORT.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(SERVICES, file));
}

describe('service sources', () => {
  it('no file under services/*/src imports typeorm', () => {
    expect(filesImportingTypeorm()).toEqual([]);
  });

  it('the scan recognises the import forms it forbids', () => {
    expect(TYPEORM_IMPORT.test(`import type { DataSource } from 'typeorm';`)).toBe(true);
    expect(TYPEORM_IMPORT.test(`import { QueryRunner } from "typeorm/query-runner/QueryRunner";`)).toBe(true);
    expect(TYPEORM_IMPORT.test(`import type { Tx } from '@market/shared';`)).toBe(false);
  });
});
