import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The committed SDK is what the current contracts generate (ADR 0035): regenerate with `npm run sdk:generate`. */
describe('the committed SDK', () => {
  it('matches what the current route contracts generate', () => {
    const output = execFileSync(process.execPath, [path.join(__dirname, '../scripts/generate.mjs'), '--check'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(output).toContain('SDK matches the contracts');
  });
});
