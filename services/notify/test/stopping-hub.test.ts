import type { ServerResponse } from 'node:http';
import { problemOfDomainError } from '@market/shared/http';
import { createLogger } from '@market/shared/logging';
import { StreamsStopped } from '../src/domain/errors';
import { notifyErrorStatuses } from '../src/http/error-statuses';
import { NotificationHub } from '../src/live/notification-hub';

describe('a replica that is stopping', () => {
  it('opens no more streams, answering 503 so the client reconnects elsewhere', async () => {
    const hub = new NotificationHub({
      databaseUrl: 'postgres://unused',
      channel: 'unused',
      log: createLogger('notify-test', 'silent'),
      source: { after: async () => [], stillAllowed: async () => true },
      heartbeatMs: 1000,
      maxAgeMs: 1000,
      maxStreamsPerUser: 1,
    });
    await hub.stop();
    const opening = () => hub.open({ kind: 'user', sub: 'u', sid: 's', ip: null }, 'u', 0, {} as ServerResponse);
    expect(opening).toThrow(StreamsStopped);
    expect(hub.openStreams).toBe(0);

    const refusal = new StreamsStopped();
    expect(refusal.kind).toBe('transient');
    expect(problemOfDomainError(refusal, notifyErrorStatuses)?.toBody('/api/notifications/stream')).toMatchObject({
      status: 503,
      title: 'Service unavailable',
      code: 'UPSTREAM_UNAVAILABLE',
      detail: 'a backing service is unavailable; try again shortly',
    });
  });
});
