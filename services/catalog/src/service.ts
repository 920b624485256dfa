import { CreateOutboxAndInbox1763800000000, defineService, SecretBox } from '@market/shared';
import { adminDirectory } from './clients/admin-directory';
import { fileRegistry } from './clients/file-registry';
import { publisherAccounts } from './clients/publisher-accounts';
import { catalogEnvShape, openUploadToken } from './config';
import { catalogEventHandlers } from './events/handlers';
import { loadDefaultScreenshot } from './http/default-screenshot';
import { catalogInternalRoutes } from './http/internal-routes';
import { catalogRouteBindings } from './http/routes';
import { CreateListings1763900000000 } from './persistence/migrations/1763900000000-create-listings';
import { CreateOpenUploads1763900000001 } from './persistence/migrations/1763900000001-create-open-uploads';
import { CreateOwnerStanding1763900000002 } from './persistence/migrations/1763900000002-create-owner-standing';
import { RecordEveryOpenUpload1763900000003 } from './persistence/migrations/1763900000003-record-every-open-upload';

export const catalogService = defineService({
  name: 'catalog',
  env: catalogEnvShape,
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, CreateListings1763900000000, CreateOpenUploads1763900000001, CreateOwnerStanding1763900000002,
    RecordEveryOpenUpload1763900000003,
  ],
  build: (ctx) => {
    const deps = {
      db: ctx.db,
      events: ctx.events,
      files: fileRegistry(ctx.internal),
      admins: adminDirectory(ctx.internal),
      publishers: publisherAccounts(ctx.internal),
      secrets: new SecretBox(ctx.config.DATA_ENCRYPTION_KEYS),
      openUploadToken: openUploadToken(ctx.config),
      openUploadBodyLimit: ctx.config.OPEN_UPLOAD_BODY_LIMIT_BYTES,
    };
    return {
      routes: catalogRouteBindings(deps, loadDefaultScreenshot()),
      internal: catalogInternalRoutes(deps),
      handlers: catalogEventHandlers(ctx.events),
    };
  },
});
