import type { Client } from './market';

/** A fresh back-office captcha, with the answer development mode sends along. */
export async function adminCaptcha(client: Client): Promise<{ captcha_id: string; dev_text: string }> {
  const res = await client.get('/api/admin/auth/captcha');
  if (res.status !== 200) throw new Error(`captcha answered ${res.status}`);
  return res.body;
}

/** A back-office login as the console does it: a fresh captcha, then the credentials with its answer. */
export async function adminLogin(client: Client, username: string, password: string) {
  const { captcha_id, dev_text } = await adminCaptcha(client);
  return client.post('/api/admin/auth/login', { username, password, captcha_id, captcha_code: dev_text });
}

/** `adminLogin` that must succeed: the access token. */
export async function adminLoginToken(client: Client, username: string, password: string): Promise<string> {
  const res = await adminLogin(client, username, password);
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}
