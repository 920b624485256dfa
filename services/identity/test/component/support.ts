import { loginWithSms, sendSmsCode, type EventData, type EventType } from '@market/contracts';
import type { Identity } from '@market/shared/auth';
import type { Component } from '@market/testkit';
import { newIp, newPhone } from '../helpers';

/** An anonymous caller at an address of its own, as the gateway asserts one from X-Forwarded-For. */
export const at = (ip = newIp()): Identity => ({ kind: 'anonymous', ip });

/**
 * The SMS login of an identity component, called as the gateway forwards it, and what identity wrote
 * to its outbox; `identity` is read at each call (the component starts in `beforeAll`).
 */
export function smsLogin(identity: () => Component) {
  const send = (body: unknown, ip?: string) => identity().call(sendSmsCode, { body, as: at(ip) });
  const login = (body: unknown, ip?: string) => identity().call(loginWithSms, { body, as: at(ip) });

  async function sendCode(phone: string, ip?: string): Promise<string> {
    const res = await send({ phone }, ip);
    if (res.status !== 200) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.dev_code;
  }

  async function logIn(phone = newPhone(), ip = newIp()) {
    const code = await sendCode(phone, ip);
    const res = await login({ phone, code }, ip);
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { access_token: string; refresh_token: string; user: { id: string } };
  }

  /** What identity wrote to its outbox with each change, oldest first. */
  async function outboxEvents<T extends EventType>(type: T): Promise<Array<{ data: EventData<T> }>> {
    const rows: Array<{ payload: { data: EventData<T> } }> = await identity().service.ctx.db.query(
      `SELECT payload FROM outbox WHERE type = $1 ORDER BY created_at, id`,
      [type],
    );
    return rows.map((r) => r.payload);
  }

  return { send, login, sendCode, logIn, outboxEvents };
}
