import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeOnTeardown } from './leftovers';

/**
 * A fresh folder under the system's temporary one, removed with whatever else the test file left
 * open when it ends (`closeLeftovers`, most recent first: after the stack that wrote there stopped).
 */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  closeOnTeardown(async () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** A log file for a process the test starts (its `LOG_FILE`), in a temporary folder of its own. */
export interface CapturedLog {
  file: string;
  /** everything written to it so far */
  text(): string;
}

export function capturedLog(prefix: string): CapturedLog {
  const file = path.join(temporaryFolder(prefix), 'service.log');
  return { file, text: () => readFileSync(file, 'utf8') };
}
