import { InvalidInput, type FieldError } from '@market/shared/errors';
import type { FileRegistry } from './ports';
import { classifyScreenshotUrl, PUBLIC_FILE_SCENES } from '../domain/screenshot-url';

/**
 * Every screenshot must be a file of this system that anyone may read; each bad one is named by
 * its index. Runs before the transaction: it asks the files service.
 */
export async function validateScreenshotUrls(files: FileRegistry, urls: string[] | undefined) {
  if (!urls) return;
  const errors: FieldError[] = [];
  await Promise.all(
    urls.map(async (url, index) => {
      const address = classifyScreenshotUrl(url);
      if (address.kind === 'default') return;
      const path = `screenshot_urls.${index}`;
      if (address.kind === 'foreign') {
        errors.push({ path, message: 'must be /api/listings/default-upload-screenshot or /api/files/object?key=<key>' });
        return;
      }
      const meta = await files.meta(address.key);
      if (!meta) errors.push({ path, message: 'no such file' });
      else if (!PUBLIC_FILE_SCENES.has(meta.scene)) errors.push({ path, message: 'file is not public (scene must be listing or avatar)' });
    }),
  );
  if (errors.length > 0) {
    errors.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
    throw new InvalidInput(errors, 'screenshot_urls must be files of this system');
  }
}
