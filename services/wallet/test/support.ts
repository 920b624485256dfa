import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { RechargePayment, type ServiceName } from '@market/contracts';
import { api, newAdmin, outboxEvents, startStack, type AlipaySimulator, type Caller, type Stack, type WechatPaySimulator } from '@market/testkit';
import { createLogger } from '@market/shared/logging';
import { WechatPayClient, wechatPayPlatformKeys } from '../src/adapters/wechatpay-client';
import { signPaygateBody } from '../src/domain/paygate-signature';
import { walletEnv } from '../src/config';

export const PAYGATE_SECRET = walletEnv.PAYGATE_SECRET.parse(undefined) as string;

export { newAdmin, newUser, type Caller } from '@market/testkit';

/** Posts a payment-gateway callback through the gateway, signed as docs/rules.md §5 says unless told otherwise. */
export function notify(
  stack: Stack,
  body: unknown,
  opts: { secret?: string; at?: number; signature?: string; raw?: string } = {},
) {
  const raw = opts.raw ?? JSON.stringify(body);
  const signature = opts.signature ?? signPaygateBody(opts.secret ?? PAYGATE_SECRET, raw, opts.at ?? Math.floor(Date.now() / 1000));
  return api(stack.url).post('/api/payments/paygate/notify', raw, undefined, { 'paygate-signature': signature });
}

export function callbackFor(payment: { id: string; amount: number }, overrides: Record<string, unknown> = {}) {
  return {
    payment_id: payment.id,
    gateway_txn_id: `txn_${payment.id.slice(-12)}`,
    amount: payment.amount,
    status: 'succeeded',
    paid_at: new Date().toISOString(),
    ...overrides,
  };
}

/** Puts money on a user's wallet the way a client does: a recharge, paid at the gateway. */
export async function recharge(stack: Stack, user: Pick<Caller, 'token'>, amount: number) {
  const client = api(stack.url);
  const started = await client.post('/api/wallet/recharge/pay', { amount, channel: 'alipay' }, user.token);
  if (started.status !== 201) throw new Error(`recharge refused: ${JSON.stringify(started.body)}`);
  const paid = await notify(stack, callbackFor(started.body));
  if (paid.status !== 200) throw new Error(`callback refused: ${JSON.stringify(paid.body)}`);
  return started.body as { id: string; amount: number };
}

export async function balanceOf(stack: Stack, user: Pick<Caller, 'token'>) {
  const res = await api(stack.url).get('/api/wallet/balance', user.token);
  return res.body as { available: number; frozen: number; currency: string };
}

/** Sum of every account's balance: zero in a double-entry ledger. */
export async function ledgerSum(stack: Stack): Promise<number> {
  const [row] = await stack.services.wallet!.ctx.db.query(`SELECT COALESCE(SUM(balance), 0)::bigint AS total FROM accounts`);
  return Number(row.total);
}

/** `order.*` event data for an order of `amount` = rent + deposit between these two users. */
export function orderData(order: { id: string; renter: Caller; owner: Caller; rent: number; deposit: number }, status: string) {
  return {
    order_id: order.id,
    listing_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
    listing_title: '王者荣耀 荣耀王者',
    renter_id: order.renter.id,
    owner_id: order.owner.id,
    status: status as 'completed',
    rent: order.rent,
    deposit: order.deposit,
    amount: order.rent + order.deposit,
    hours: 2,
    reason: null,
    actor_id: null,
  };
}

/** The checkout breakdown of docs/rules.md §4, with the default 5 % commission rounded down. */
export function breakdown(amount: number, consumption: number, depositDeduction: number) {
  const earned = consumption + depositDeduction;
  const platform_fee = Math.floor((earned * 500) / 10_000);
  return { consumption, deposit_deduction: depositDeduction, refund: amount - earned, owner_income: earned - platform_fee, platform_fee };
}

export async function inboxHas(stack: Stack, eventId: string): Promise<boolean> {
  const rows = await stack.services.wallet!.ctx.db.query(`SELECT 1 FROM inbox WHERE event_id = $1`, [eventId]);
  return rows.length > 0;
}

/** The platform's revenue: the sum of its revenue accounts (fees are spread over shards by order). */
export async function platformRevenue(stack: Stack): Promise<number> {
  const [row] = await stack.services.wallet!.ctx.db.query(`SELECT COALESCE(SUM(balance), 0)::bigint AS total FROM accounts WHERE kind = 'platform_revenue'`);
  return Number(row.total);
}

/**
 * A TCP proxy in front of a server (Postgres), for one test's service only: `cut()` ends every
 * connection through it and refuses new ones until `restore()`, as an outage would.
 */
export async function tcpProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<Socket>();
  let cut = false;
  const server = createNetServer((inbound) => {
    if (cut) return void inbound.destroy();
    const outbound = netConnect(targetPort, targetHost);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export const ALIPAY_NOTIFY_URL = 'https://market.example.com/api/payments/alipay/notify';
export const WECHATPAY_NOTIFY_URL = 'https://market.example.com/api/payments/wechatpay/notify';

/** The wallet's settings for paying through the local Alipay simulator: certificate mode when the simulator runs in it. */
/**
 * How long the wallet waits for a simulator. The simulators answer at once (a lost answer is an
 * immediate 504), but on a loaded CI machine the default 5 s can pass before the answer is read,
 * and the wallet then rightly records the outcome as unknown: a test of an answered call would
 * fail for the machine's sake. Unknown outcomes are staged by the simulators' modes instead.
 */
const SIMULATOR_TIMEOUT_MS = '30000';

export const alipayEnv = (sim: AlipaySimulator): Record<string, string> => ({
  PAYGATE_PROVIDER: 'alipay',
  ALIPAY_APP_ID: sim.appId,
  ALIPAY_PRIVATE_KEY: sim.appPrivateKey,
  ...(sim.certificates
    ? { ALIPAY_APP_CERT: sim.certificates.appCert, ALIPAY_PUBLIC_CERT: sim.certificates.alipayPublicCert, ALIPAY_ROOT_CERT: sim.certificates.rootCert }
    : { ALIPAY_PUBLIC_KEY: sim.alipayPublicKey }),
  ALIPAY_GATEWAY: sim.gatewayUrl,
  ALIPAY_NOTIFY_URL,
  ALIPAY_TIMEOUT_MS: SIMULATOR_TIMEOUT_MS,
});

export const WECHATPAY_TRANSFER_NOTIFY_URL = 'https://market.example.com/api/payments/wechatpay/transfer-notify';
export const WECHATPAY_REFUND_NOTIFY_URL = 'https://market.example.com/api/payments/wechatpay/refund-notify';

/**
 * The wallet's settings for paying through the local WeChat Pay simulator, verifying WeChat Pay by
 * its public key (what a merchant signing up today gets), its platform certificate (an older
 * merchant), or both (a merchant moving from one to the other).
 */
export const wechatPayEnv = (sim: WechatPaySimulator, mode: 'publicKey' | 'certificate' | 'both' = 'publicKey') => ({
  PAYGATE_PROVIDER: 'wechatpay',
  WECHATPAY_APP_ID: sim.appId,
  WECHATPAY_MCH_ID: sim.mchId,
  WECHATPAY_PRIVATE_KEY: sim.merchantPrivateKey,
  WECHATPAY_CERTIFICATE: sim.merchantCertificate,
  ...(mode === 'certificate' ? {} : { WECHATPAY_PUBLIC_KEY: sim.publicKey, WECHATPAY_PUBLIC_KEY_ID: sim.publicKeyId }),
  ...(mode === 'publicKey' ? {} : { WECHATPAY_PLATFORM_CERTIFICATES: sim.platformCertificate }),
  WECHATPAY_API_V3_KEY: sim.apiV3Key,
  WECHATPAY_NOTIFY_URL,
  WECHATPAY_TRANSFER_NOTIFY_URL,
  WECHATPAY_REFUND_NOTIFY_URL,
  WECHATPAY_BASE_URL: sim.baseUrl,
  WECHATPAY_TIMEOUT_MS: SIMULATOR_TIMEOUT_MS,
});

/** A WeChat Pay client of the simulator's merchant, for the adapters the wallet does not reach through a route of its own yet. */
export function wechatPayClientFor(sim: WechatPaySimulator, mode: 'publicKey' | 'certificate' | 'both' = 'publicKey', opts: { timeoutMs?: number } = {}) {
  return new WechatPayClient(
    {
      appId: sim.appId,
      mchId: sim.mchId,
      privateKey: sim.merchantPrivateKey,
      merchantSerial: sim.merchantSerial,
      platformKeys: wechatPayPlatformKeys({
        ...(mode === 'certificate' ? {} : { publicKey: sim.publicKey, publicKeyId: sim.publicKeyId }),
        ...(mode === 'publicKey' ? {} : { platformCertificates: sim.platformCertificate }),
      }),
      apiV3Key: sim.apiV3Key,
      baseUrl: sim.baseUrl,
      timeoutMs: opts.timeoutMs ?? 5_000,
    },
    createLogger('wallet-test', 'silent'),
  );
}

/** Recharge scans quick enough for a test: expiry, and asking the provider about a payment whose callback is late. */
export const QUICK_PAYMENT_SCANS = { PAYMENT_EXPIRY_SCAN_MS: '100', PAYMENT_QUERY_AFTER_MS: '1500', PAYMENT_QUERY_SCAN_MS: '200' };

/**
 * A stack whose wallet runs with `wallet` settings against a provider simulator, the simulator's
 * callbacks sent to the stack's gateway; stopping the stack stops the simulator too.
 */
export async function startStackWith(
  sim: { routeNotificationsTo(url: string): void; stop(): Promise<void> },
  services: ServiceName[],
  wallet: Record<string, string>,
): Promise<Stack> {
  const stack = await startStack({ services, serviceEnv: { wallet } });
  sim.routeNotificationsTo(stack.url);
  return {
    ...stack,
    async stop() {
      await stack.stop();
      await sim.stop();
    },
  };
}

/** A reconciliation run's findings as finance reads them: each as [kind, line_kind, reference, bill_amount, ledger_amount], sorted. */
export async function findingsOfRun(stack: Stack, runId: string, finance: Pick<Caller, 'token'>) {
  const detail = await api(stack.url).get(`/api/admin/reconciliations/${runId}`, finance.token);
  return detail.body.items.map((f: Record<string, unknown>) => [f.kind, f.line_kind, f.reference, f.bill_amount, f.ledger_amount]).sort();
}

/** A stack whose wallet pays through a provider simulator, as a provider's end-to-end tests start it. */
export interface ProviderStack<Sim> {
  sim: Sim;
  stack: Stack;
  client: ReturnType<typeof api>;
}

/**
 * Starts a provider simulator, then a stack of `services` whose wallet runs against it with the
 * settings `wallet` gives for it (`startStackWith`: stopping the stack stops the simulator too).
 */
export async function startProviderStack<Sim extends { routeNotificationsTo(url: string): void; stop(): Promise<void> }>(
  simulator: Promise<Sim>,
  services: ServiceName[],
  wallet: (sim: Sim) => Record<string, string>,
): Promise<ProviderStack<Sim>> {
  const sim = await simulator;
  const stack = await startStackWith(sim, services, wallet(sim));
  return { sim, stack, client: api(stack.url) };
}

/** A provider stack (which must run admin) with a back-office user in finance, who decides withdrawals and refunds (ADR 0033). */
export async function withFinance<Started extends { stack: Stack }>(started: Promise<Started>): Promise<Started & { finance: Caller }> {
  const ready = await started;
  return { ...ready, finance: await newAdmin(ready.stack, ['finance']) };
}

/** Opens a recharge as a client does (the channel left to the wallet unless given). */
export async function startRecharge(stack: Stack, user: { token: string }, amount: number, channel?: string) {
  const res = await api(stack.url).post('/api/wallet/recharge/pay', channel ? { amount, channel } : { amount }, user.token);
  if (res.status !== 201) throw new Error(`recharge refused: ${res.status} ${JSON.stringify(res.body)}`);
  return RechargePayment.strict().parse(res.body);
}

/** The audit entries the wallet wrote about one payment. */
export async function paymentAudits(stack: Stack, paymentId: string) {
  return (await outboxEvents(stack, 'wallet', 'audit.recorded')).filter((e) => e.data.biz_id === paymentId).map((e) => e.data);
}

/** A user as `smsUser` logs one in: the id and the access token. */
export interface SmsUser {
  id: string;
  token: string;
}

/** A user logged in with an SMS code (the stack needs identity) who verified `realName`, as withdrawals require, unless told not to. */
export async function smsUser(stack: Stack, opts: { realName?: string } = {}): Promise<SmsUser> {
  const client = api(stack.url);
  const phone = `139${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const sent = await client.post('/api/auth/sms/send', { phone });
  const login = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
  if (login.status !== 200) throw new Error(`login refused: ${JSON.stringify(login.body)}`);
  const user = { id: login.body.user.id as string, token: login.body.access_token as string };
  if (opts.realName) {
    const verified = await client.post('/api/realname/start', { real_name: opts.realName, id_number: '11010519491231002X' }, user.token);
    if (verified.status >= 300) throw new Error(`real-name verification refused: ${JSON.stringify(verified.body)}`);
  }
  return user;
}
