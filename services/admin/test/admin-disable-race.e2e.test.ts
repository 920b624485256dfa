import { randomBytes } from 'node:crypto';
import { api, startStack, type Stack } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { loginToken, uniqueUsername, type Client } from './helpers';

/** A stack of its own: these tests need to know every admin there is. */
describe('disabling the last active admins', () => {
  let stack: Stack;
  let client: Client;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin'] });
    client = api(stack.url);
  });
  afterAll(() => stack.stop());

  const activeIds = async (): Promise<string[]> =>
    (await stack.services.admin!.ctx.db.query(`SELECT id FROM admin_users WHERE status = 'active' ORDER BY id`)).map((r: { id: string }) => r.id);

  it('of two admins disabling each other at once exactly one succeeds and one stays active, round after round', async () => {
    let survivor = { token: await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD), id: '' };
    survivor.id = (await client.get('/api/admin/me', survivor.token)).body.id;
    for (let round = 0; round < 4; round++) {
      const username = uniqueUsername('pair');
      const password = `pw-${randomBytes(10).toString('hex')}`;
      const added = await client.post('/api/admin/admins', { username, nickname: username, password }, survivor.token);
      expect(added.status).toBe(201);
      const challenger = { token: await loginToken(client, username, password), id: added.body.id as string };
      expect((await activeIds()).sort()).toEqual([survivor.id, challenger.id].sort());

      const [bySurvivor, byChallenger] = await Promise.all([
        client.post(`/api/admin/admins/${challenger.id}/disable`, {}, survivor.token),
        client.post(`/api/admin/admins/${survivor.id}/disable`, {}, challenger.token),
      ]);
      const statuses = [bySurvivor.status, byChallenger.status];
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      const loser = bySurvivor.status === 200 ? byChallenger : bySurvivor;
      // 409 from the service when it got that far, or 403 from the gateway when the winner's block came first.
      expect([403, 409]).toContain(loser.status);
      if (loser.status === 409) expect(loser.body.code).toBe('LAST_ACTIVE_ADMIN');

      const active = await activeIds();
      expect(active).toHaveLength(1);
      survivor = active[0] === survivor.id ? survivor : challenger;
      expect((await client.get('/api/admin/me', survivor.token)).status).toBe(200);
    }

    const self = await client.post(`/api/admin/admins/${survivor.id}/disable`, {}, survivor.token);
    expect(self.status).toBe(403);
    expect(await activeIds()).toEqual([survivor.id]);
  });
});
