import { capturedLog, stackPerSuite } from '@market/testkit';
import { captcha, loginToken, newAdmin, uniqueUsername } from './helpers';

describe('logs of the back-office login', () => {
  const logs = capturedLog('admin-logs');
  const own = stackPerSuite({ services: ['admin'], env: { LOG_LEVEL: 'trace', LOG_FILE: logs.file } });

  it('never contain the password, the captcha text or the access token, even at trace level', async () => {
    const { stack, client } = own;
    const admin = await newAdmin(stack);
    const failed = await captcha(client);
    const refused = await client.post('/api/admin/auth/login', {
      username: admin.username,
      password: 'a-wrong-password-7f3a',
      captcha_id: failed.captcha_id,
      captcha_code: failed.dev_text,
    });
    expect(refused.status).toBe(401);
    const { captcha_id, dev_text } = await captcha(client);
    const res = await client.post('/api/admin/auth/login', { username: admin.username, password: admin.password, captcha_id, captcha_code: dev_text });
    expect(res.status).toBe(200);
    const token: string = res.body.access_token;
    expect((await client.get('/api/admin/me', token)).status).toBe(200);
    expect((await client.post('/api/admin/auth/logout', undefined, token)).status).toBe(204);

    const log = logs.text();
    expect(log).toContain('/api/admin/auth/login');
    expect(log).toContain('"service":"admin"');
    for (const secret of [admin.password, 'a-wrong-password-7f3a', token, token.split('.')[2]!]) expect(log).not.toContain(secret);
    for (const text of [dev_text, failed.dev_text]) {
      expect(log).not.toMatch(new RegExp(`["\\s:]${text}["\\s,}]`, 'i'));
    }
  });

  it('never contain the passwords of an admin added or a password changed through the API', async () => {
    const { stack, client } = own;
    const admin = await newAdmin(stack);
    const token = await loginToken(client, admin.username, admin.password);
    const initial = 'initial-password-5c1e';
    const added = await client.post('/api/admin/admins', { username: uniqueUsername(), nickname: 'Logged', password: initial }, token);
    expect(added.status).toBe(201);
    const tooShort = await client.post('/api/admin/admins', { username: uniqueUsername(), nickname: 'Logged', password: 'short-9d2b' }, token);
    expect(tooShort.status).toBe(400);
    const wrong = await client.post('/api/admin/me/password', { current_password: 'wrong-current-3b8e', new_password: 'next-password-a41f' }, token);
    expect(wrong.status).toBe(422);
    const changed = await client.post('/api/admin/me/password', { current_password: admin.password, new_password: 'next-password-a41f' }, token);
    expect(changed.status).toBe(200);

    const log = logs.text();
    expect(log).toContain('/api/admin/me/password');
    for (const secret of [admin.password, initial, 'short-9d2b', 'wrong-current-3b8e', 'next-password-a41f']) expect(log).not.toContain(secret);
  });
});
