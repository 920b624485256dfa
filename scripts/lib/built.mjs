// The workspaces' built output (`npm run build` first), for the scripts that run against it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

/** The repository's root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const require = createRequire(import.meta.url);

/** A built module by its path from the root: `requireBuilt('services/admin/dist/config.js')`. */
export const requireBuilt = (file) => require(path.join(root, file));

/**
 * The contracts with the kit's auth and config, as one object: route owners, token and assertion
 * signing, internal keys, the secrets' shapes (what a bench needs to stand in for the gateway).
 */
export function builtKit() {
  return {
    ...requireBuilt('packages/contracts/dist/index.js'),
    ...requireBuilt('packages/shared/dist/auth/index.js'),
    ...requireBuilt('packages/shared/dist/config/index.js'),
  };
}
