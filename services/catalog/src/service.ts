import { resealLegacySecrets, SecretBox } from '@market/shared/crypto';
import { CreateOutboxAndInbox1763800000000, CreateWaitingEvents1765100000000 } from '@market/shared/events';
import { ReadCache } from '@market/shared/http';
import { LISTING_CHANGES_CHANNEL } from '@market/shared/redis';
import { defineService } from '@market/shared/service';
import { adminDirectory } from './adapters/admin-directory';
import { listingChangeNotices } from './adapters/listing-change-notices';
import { fileRegistry } from './adapters/file-registry';
import { publisherAccounts } from './adapters/publisher-accounts';
import { catalogEnvShape, openUploadToken } from './config';
import { catalogEventHandlers } from './events/handlers';
import { loadDefaultScreenshot } from './http/default-screenshot';
import { answerOf, catalogErrorStatuses } from './http/error-statuses';
import { catalogInternalRoutes } from './http/internal-routes';
import { catalogRouteBindings } from './http/routes';
import { LISTING_CREDENTIALS_SEALED } from './persistence/credentials-repository';
import { CreateListings1763900000000 } from './persistence/migrations/1763900000000-create-listings';
import { CreateOpenUploads1763900000001 } from './persistence/migrations/1763900000001-create-open-uploads';
import { CreateOwnerStanding1763900000002 } from './persistence/migrations/1763900000002-create-owner-standing';
import { RecordEveryOpenUpload1763900000003 } from './persistence/migrations/1763900000003-record-every-open-upload';
import { IndexTextSearch1763900000004 } from './persistence/migrations/1763900000004-index-text-search';
import { IndexShortTextSearch1763900000005 } from './persistence/migrations/1763900000005-index-short-text-search';
import { ListingAllowRenewal1767000000002 } from './persistence/migrations/1767000000002-listing-allow-renewal';
import { RatingTotals1767100000001 } from './persistence/migrations/1767100000001-rating-totals';
import { CredentialRotation1767100000003 } from './persistence/migrations/1767100000003-credential-rotation';
import { OPEN_UPLOAD_RAW_SEALED } from './persistence/open-upload-repository';
import { registerCatalogMetrics } from './business-metrics';

/**
 * How long another replica's write can take to show in this one's public reads; this replica's
 * own writes show at once (ADR 0020).
 */
const PUBLIC_READS_TTL_MS = 1000;

export const catalogService = defineService({
  name: 'catalog',
  env: catalogEnvShape,
  entities: [],
  errorStatuses: catalogErrorStatuses,
  migrations: [
    CreateOutboxAndInbox1763800000000,
    CreateListings1763900000000,
    CreateOpenUploads1763900000001,
    CreateOwnerStanding1763900000002,
    RecordEveryOpenUpload1763900000003,
    IndexTextSearch1763900000004,
    IndexShortTextSearch1763900000005,
    RatingTotals1767100000001,
    CredentialRotation1767100000003,
    CreateWaitingEvents1765100000000,
    ListingAllowRenewal1767000000002,
  ],
  build: async (ctx) => {
    registerCatalogMetrics(ctx);
    const secrets = new SecretBox(ctx.config.DATA_ENCRYPTION_KEYS);
    await resealLegacySecrets(ctx.db, secrets, [LISTING_CREDENTIALS_SEALED, OPEN_UPLOAD_RAW_SEALED], ctx.log);
    const publicReads = new ReadCache(PUBLIC_READS_TTL_MS);
    const announceChange = listingChangeNotices(ctx.redis, ctx.redisKey(LISTING_CHANGES_CHANNEL), ctx.log);
    // Every change a reader can see commits in a transaction with its event (a request's, an
    // event handler's, a job's), so a cache dropped after each commit never serves anything older
    // than this process's last write, and the gateways, told after each, drop theirs (ADR 0068).
    ctx.afterEveryCommit(() => {
      publicReads.invalidate();
      announceChange();
    });
    const deps = {
      db: ctx.db,
      events: ctx.events,
      files: fileRegistry(ctx.internal),
      admins: adminDirectory(ctx.internal),
      publishers: publisherAccounts(ctx.internal),
      secrets,
      publicReads,
      openUploadToken: openUploadToken(ctx.config),
      openUploadBodyLimit: ctx.config.OPEN_UPLOAD_BODY_LIMIT_BYTES,
      answerOf,
    };
    return {
      routes: catalogRouteBindings(deps, loadDefaultScreenshot()),
      internal: catalogInternalRoutes(deps),
      handlers: catalogEventHandlers(ctx.events),
      // each handler writes rows and outbox events in its transaction and nothing outside it; a
      // batch locks its listings in delivery order, so two replicas' batches may deadlock, and
      // Postgres aborting one sends its events through one by one (ADR 0076)
      batchEvents: true,
    };
  },
});
