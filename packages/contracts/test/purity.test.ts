import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Contracts are data: what crosses a service boundary, in zod. Anything with I/O belongs to the kit
// (@market/shared), so a contract edit never drags a runtime change with it and every process can
// load the contracts without loading a driver.
const SRC = path.resolve(__dirname, '../src');
const ALLOWED = new Set(['zod', '@asteasolutions/zod-to-openapi']);
const IMPORT = /(?:from\s+|require\(\s*|import\(\s*)['"]([^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

function foreignImports(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((m) => m[1]!).filter((spec) => !spec.startsWith('.') && !ALLOWED.has(spec));
}

describe('contracts package', () => {
  it('imports nothing but zod, its OpenAPI extension and itself', () => {
    const offenders = sourceFiles(SRC).flatMap((file) =>
      foreignImports(readFileSync(file, 'utf8')).map((spec) => `${path.relative(SRC, file)}: ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the scan recognises what it forbids', () => {
    expect(foreignImports(`import { DataSource } from 'typeorm';\nimport { z } from 'zod';`)).toEqual(['typeorm']);
    expect(foreignImports(`import { x } from '@market/shared/http';`)).toEqual(['@market/shared/http']);
    expect(foreignImports(`import { IdParams } from '../common';`)).toEqual([]);
  });
});
