import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sweepIncoming } from '../src/adapters/storage/sweep-incoming';

describe('sweeping the upload folder', () => {
  it('removes files a crashed upload left behind and keeps uploads in progress', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'files-incoming-'));
    try {
      writeFileSync(path.join(dir, 'abandoned'), 'x');
      writeFileSync(path.join(dir, 'in-progress'), 'y');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(path.join(dir, 'abandoned'), twoHoursAgo, twoHoursAgo);
      expect(await sweepIncoming(dir, 3600_000)).toBe(1);
      expect(readdirSync(dir)).toEqual(['in-progress']);
      expect(await sweepIncoming(path.join(dir, 'missing'), 3600_000)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
