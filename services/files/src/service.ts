import path from 'node:path';
import { CreateOutboxAndInbox1763800000000, CreateWaitingEvents1765100000000 } from '@market/shared/events';
import { defineService } from '@market/shared/service';
import { filesEnvShape } from './config';
import { filesEventHandlers } from './events/handlers';
import { filesErrorStatuses } from './http/error-statuses';
import { createUploadReceiver } from './http/receive-upload';
import { filesInternalRoutes } from './http/internal-routes';
import { fileRoutes } from './http/routes';
import { sweepAbandonedUploads } from './jobs/sweep-abandoned-uploads';
import { CreateFiles1763900000000 } from './persistence/migrations/1763900000000-create-files';
import { RecordEndedGrants1765300000000 } from './persistence/migrations/1765300000000-record-ended-grants';
import { chooseStorage } from './adapters/storage/choose-storage';

export const filesService = defineService({
  name: 'files',
  env: filesEnvShape,
  entities: [],
  errorStatuses: filesErrorStatuses,
  // order.* events are money events, never parked: they wait in waiting_events (ADR 0026)
  migrations: [CreateOutboxAndInbox1763800000000, CreateFiles1763900000000, CreateWaitingEvents1765100000000, RecordEndedGrants1765300000000],
  build: (ctx) => {
    // Inside the disk store's root so that accepting an upload is a rename; never a valid key prefix.
    // The bucket store receives uploads there too, then streams them to the bucket.
    const incoming = path.join(ctx.config.FILES_STORAGE_DIR, '.incoming');
    const deps = { db: ctx.db, events: ctx.events, storage: chooseStorage(ctx.config, ctx.log) };
    return {
      routes: fileRoutes(deps, createUploadReceiver(incoming, ctx.log)),
      internal: filesInternalRoutes(deps),
      handlers: filesEventHandlers(),
      // an ended order's grants are rows, nothing outside the transaction (ADR 0076)
      batchEvents: true,
      jobs: [sweepAbandonedUploads(incoming, ctx.log)],
    };
  },
});
