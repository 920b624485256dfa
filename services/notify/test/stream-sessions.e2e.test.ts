import { randomInt } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { mintToken, newAdmin, stackPerSuite } from '@market/testkit';
import { msUntilEnded, SseClient, streamsClosedAfterEach } from './support';

/**
 * A live stream ends with the session it was opened in, everywhere at once (ADR 0034): when its
 * access token expires, and the moment identity ends the session (logout, refresh-token reuse,
 * freeze), through the revocation channel rather than a poll. The heartbeat, the old poll, is set
 * far beyond every wait here, so only the new paths can end these streams in time.
 */
const HEARTBEAT_MS = 120_000;
const PROMPTLY_MS = 2000;

describe('live streams end with their session', () => {
  const own = stackPerSuite(
    {
      services: ['identity', 'notify', 'admin'],
      serviceEnv: { notify: { NOTIFY_HEARTBEAT_MS: String(HEARTBEAT_MS) }, identity: { SMS_DAILY_LIMIT_PER_IP: '100000' } },
    },
    60_000,
  );
  const openStream = streamsClosedAfterEach();

  const logIn = async () => {
    const phone = `135${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
    const sent = await own.client.post('/api/auth/sms/send', { phone });
    const login = await own.client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
    expect(login.status).toBe(200);
    return { id: login.body.user.id as string, access: login.body.access_token as string, refresh: login.body.refresh_token as string };
  };
  const open = async (token: string) => {
    const stream = await openStream(`${own.stack.url}/api/notifications/stream`, token);
    expect(stream.status).toBe(200);
    return stream;
  };
  const endsPromptly = (stream: SseClient) => msUntilEnded(stream, PROMPTLY_MS);

  it('ends at once on logout, and only the stream of the session logged out', async () => {
    const user = await logIn();
    const elsewhere = await logIn();
    const stream = await open(user.access);
    const other = await open(elsewhere.access);
    expect((await own.client.post('/api/auth/logout', { refresh_token: user.refresh }, user.access)).status).toBe(204);
    expect(await endsPromptly(stream)).toBeLessThan(PROMPTLY_MS);
    expect(other.ended).toBe(false);
  });

  it('ends at once when a rotated refresh token is reused', async () => {
    const user = await logIn();
    const stream = await open(user.access);
    const later = await logIn();
    const marker = await open(later.access);
    const rotated = await own.client.post('/api/auth/refresh', { refresh_token: user.refresh });
    expect(rotated.status).toBe(200);
    // The refresh does not end the session; its reuse does. A later logout's stream ending shows the
    // revocation channel has carried whatever the refresh sent before it.
    expect((await own.client.post('/api/auth/logout', { refresh_token: later.refresh }, later.access)).status).toBe(204);
    expect(await endsPromptly(marker)).toBeLessThan(PROMPTLY_MS);
    expect(stream.ended).toBe(false);
    expect((await own.client.post('/api/auth/refresh', { refresh_token: user.refresh })).status).toBe(401);
    expect(await endsPromptly(stream)).toBeLessThan(PROMPTLY_MS);
  });

  it('ends at once when the user is frozen', async () => {
    const user = await logIn();
    const stream = await open(user.access);
    const support = await newAdmin(own.stack, ['customer_service']);
    expect((await own.client.post(`/api/admin/users/${user.id}/freeze`, { reason: 'chargebacks' }, support.token)).status).toBe(200);
    expect(await endsPromptly(stream)).toBeLessThan(PROMPTLY_MS);
  });

  it('ends when its access token expires, not at the stream’s own maximum age', async () => {
    const token = mintToken('user', uuidv7(), uuidv7(), 2);
    const stream = await open(token);
    await stream.untilEnded(4000);
    expect((await own.client.get('/api/notifications', token)).status).toBe(401);
  });
});
