import { constants, createCipheriv, createSign, createVerify, generateKeyPairSync, privateDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readBody } from './simulator-server';

/**
 * A local stand-in for WeChat Pay API v3 (`api.mch.weixin.qq.com`), speaking its wire format:
 * every request carries `Authorization: WECHATPAY2-SHA256-RSA2048 mchid=…,nonce_str=…,timestamp=…,
 * serial_no=…,signature=…` over `METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n`, which the simulator
 * CHECKS with the merchant certificate's key; answers and callbacks are signed with the platform key
 * (`Wechatpay-Timestamp/Nonce/Signature/Serial`); the platform certificate is served by
 * `/v3/certificates` and a callback's `resource` is encrypted AEAD_AES_256_GCM with the API v3 key.
 * Keys and certificates are made per run (certificates with the openssl CLI).
 */

export interface SimulatedWechatOrder {
  out_trade_no: string;
  transaction_id: string;
  description: string;
  total: number;
  trade_state: 'NOTPAY' | 'SUCCESS' | 'CLOSED';
  notify_url: string;
  code_url: string;
  success_time: string | null;
}

export type WechatTransferMode = 'success' | 'fail' | 'unknown';

export interface SimulatedWechatTransfer {
  out_batch_no: string;
  out_detail_no: string;
  batch_id: string;
  detail_id: string;
  openid: string;
  /** the payee name as decrypted with the platform key (it travels RSA-OAEP encrypted) */
  user_name: string | null;
  transfer_amount: number;
  detail_status: 'SUCCESS' | 'FAIL';
  fail_reason: string | null;
}

export interface WechatPaySimulator {
  /** what replaces `https://api.mch.weixin.qq.com` */
  baseUrl: string;
  appId: string;
  mchId: string;
  /** the merchant's API key and certificate (apiclient_key.pem, apiclient_cert.pem) */
  merchantPrivateKey: string;
  merchantCertificate: string;
  apiV3Key: string;
  platformSerial: string;
  orders: Map<string, SimulatedWechatOrder>;
  refusedRequests: string[];
  transfers: Map<string, SimulatedWechatTransfer>;
  /** how many transfer batches arrived per out_batch_no (a payout must never be sent twice) */
  transferRequests: Map<string, number>;
  /** how the next transfers end: paid, refused (`fail_reason`), or made while the answer is lost (a 500) */
  setTransferMode(mode: WechatTransferMode, failReason?: string): void;
  routeNotificationsTo(baseUrl: string): void;
  /** The payer pays: the order succeeds and, unless `deliver` is false, its callback is posted. */
  pay(outTradeNo: string, opts?: { deliver?: boolean }): Promise<{ status: number; text: string } | null>;
  /** A signed callback of the order as WeChat Pay would post it; `transaction` overrides fields of the encrypted resource. */
  callbackFor(outTradeNo: string, transaction?: Record<string, unknown>): { headers: Record<string, string>; body: string };
  sendCallback(notifyUrl: string, callback: { headers: Record<string, string>; body: string }): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

function certificateFor(key: KeyObject, subject: string, serialHex: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'wxsim-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    writeFileSync(keyFile, key.export({ type: 'pkcs8', format: 'pem' }));
    execFileSync('openssl', ['req', '-new', '-x509', '-key', keyFile, '-out', certFile, '-days', '2', '-subj', subject, '-set_serial', `0x${serialHex}`]);
    return readFileSync(certFile, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** RFC 3339 in China time, as WeChat Pay writes times. */
function wechatTime(at = new Date()): string {
  return `${new Date(at.getTime() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;
}

export async function startWechatPaySimulator(): Promise<WechatPaySimulator> {
  const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // 20-byte serials with a leading 1, so no DER sign byte changes how they print
  const merchantSerial = `1${randomBytes(19).toString('hex')}A`.toUpperCase();
  const platformSerial = `1${randomBytes(19).toString('hex')}B`.toUpperCase();
  const mchId = `16${String(Date.now()).slice(-8)}`;
  const appId = `wx${randomBytes(8).toString('hex')}`;
  const apiV3Key = randomBytes(16).toString('hex');
  const merchantCertificate = certificateFor(merchant.privateKey, `/CN=${mchId}/O=WeChat Pay simulator merchant`, merchantSerial);
  const platformCertificate = certificateFor(platform.privateKey, '/CN=Tenpay.com Root CA simulator', platformSerial);
  const orders = new Map<string, SimulatedWechatOrder>();
  const refusedRequests: string[] = [];
  const transfers = new Map<string, SimulatedWechatTransfer>();
  const transferRequests = new Map<string, number>();
  let transferMode: WechatTransferMode = 'success';
  let transferFailReason = 'NAME_NOT_CORRECT';
  let notificationBase: string | null = null;

  const platformSign = (message: string) => createSign('RSA-SHA256').update(message).sign(platform.privateKey, 'base64');

  function encrypt(plaintext: string, associatedData: string) {
    const nonce = randomBytes(6).toString('hex');
    const cipher = createCipheriv('aes-256-gcm', apiV3Key, nonce);
    cipher.setAAD(Buffer.from(associatedData));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return { algorithm: 'AEAD_AES_256_GCM', nonce, associated_data: associatedData, ciphertext: data.toString('base64') };
  }

  function signedHeaders(body: string) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    return {
      'Wechatpay-Timestamp': timestamp,
      'Wechatpay-Nonce': nonce,
      'Wechatpay-Signature': platformSign(`${timestamp}\n${nonce}\n${body}\n`),
      'Wechatpay-Serial': platformSerial,
    };
  }

  function answer(res: ServerResponse, status: number, payload?: unknown) {
    const body = payload === undefined ? '' : JSON.stringify(payload);
    res.writeHead(status, { ...(body ? { 'content-type': 'application/json' } : {}), ...signedHeaders(body) });
    res.end(body);
  }

  function transactionOf(order: SimulatedWechatOrder) {
    return {
      appid: appId,
      mchid: mchId,
      out_trade_no: order.out_trade_no,
      transaction_id: order.transaction_id,
      trade_type: 'NATIVE',
      trade_state: order.trade_state,
      trade_state_desc: order.trade_state === 'SUCCESS' ? '支付成功' : order.trade_state === 'CLOSED' ? '订单已关闭' : '订单未支付',
      bank_type: 'OTHERS',
      payer: { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' },
      amount: { total: order.total, payer_total: order.total, currency: 'CNY', payer_currency: 'CNY' },
      ...(order.success_time ? { success_time: order.success_time } : {}),
    };
  }

  /** Whether the Authorization header is the merchant's signature over this request. */
  function authorized(req: IncomingMessage, body: string): boolean {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('WECHATPAY2-SHA256-RSA2048 ')) return false;
    const fields = Object.fromEntries([...header.slice(26).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (fields.mchid !== mchId || fields.serial_no?.toUpperCase() !== merchantSerial || !fields.signature) return false;
    if (Math.abs(Date.now() / 1000 - Number(fields.timestamp)) > 300) return false;
    const message = `${req.method}\n${req.url}\n${fields.timestamp}\n${fields.nonce_str}\n${body}\n`;
    return createVerify('RSA-SHA256').update(message).verify(merchant.publicKey, fields.signature, 'base64');
  }

  /** 商家转账到零钱: a one-detail batch; the payee name, when sent, must be encrypted for the platform key named by Wechatpay-Serial. */
  function transferBatch(res: ServerResponse, req: IncomingMessage, input: any) {
    transferRequests.set(input.out_batch_no, (transferRequests.get(input.out_batch_no) ?? 0) + 1);
    const known = transfers.get(input.out_batch_no);
    if (known) return answer(res, 200, { out_batch_no: known.out_batch_no, batch_id: known.batch_id, create_time: wechatTime() });
    const item = input.transfer_detail_list?.[0];
    if (input.appid !== appId || input.total_num !== 1 || !item || item.transfer_amount !== input.total_amount) {
      return answer(res, 400, { code: 'PARAM_ERROR', message: '参数错误' });
    }
    let userName: string | null = null;
    if (item.user_name) {
      if (req.headers['wechatpay-serial'] !== platformSerial) return answer(res, 400, { code: 'PARAM_ERROR', message: '平台证书序列号错误' });
      try {
        userName = privateDecrypt({ key: platform.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, Buffer.from(item.user_name, 'base64')).toString('utf8');
      } catch {
        return answer(res, 400, { code: 'PARAM_ERROR', message: '姓名解密失败' });
      }
    }
    const t: SimulatedWechatTransfer = {
      out_batch_no: input.out_batch_no,
      out_detail_no: item.out_detail_no,
      batch_id: `1030000${randomBytes(10).toString('hex')}`,
      detail_id: `1040000${randomBytes(10).toString('hex')}`,
      openid: item.openid,
      user_name: userName,
      transfer_amount: item.transfer_amount,
      detail_status: transferMode === 'fail' ? 'FAIL' : 'SUCCESS',
      fail_reason: transferMode === 'fail' ? transferFailReason : null,
    };
    transfers.set(t.out_batch_no, t);
    if (transferMode === 'unknown') return answer(res, 500, { code: 'SYSTEM_ERROR', message: '系统错误' });
    return answer(res, 200, { out_batch_no: t.out_batch_no, batch_id: t.batch_id, create_time: wechatTime() });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const body = (await readBody(req)).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://simulator');
    if (!authorized(req, body)) {
      refusedRequests.push(`${req.method} ${url.pathname}`);
      return answer(res, 401, { code: 'SIGN_ERROR', message: '签名错误' });
    }
    if (req.method === 'GET' && url.pathname === '/v3/certificates') {
      return answer(res, 200, {
        data: [
          {
            serial_no: platformSerial,
            effective_time: wechatTime(new Date(Date.now() - 3600_000)),
            expire_time: wechatTime(new Date(Date.now() + 86_400_000)),
            encrypt_certificate: encrypt(platformCertificate, 'certificate'),
          },
        ],
      });
    }
    if (req.method === 'POST' && url.pathname === '/v3/pay/transactions/native') {
      const input = JSON.parse(body);
      if (input.appid !== appId || input.mchid !== mchId || !Number.isInteger(input.amount?.total)) {
        return answer(res, 400, { code: 'PARAM_ERROR', message: '参数错误' });
      }
      const known = orders.get(input.out_trade_no);
      if (known) return answer(res, 200, { code_url: known.code_url });
      const order: SimulatedWechatOrder = {
        out_trade_no: input.out_trade_no,
        transaction_id: `42000${randomBytes(12).toString('hex')}`,
        description: input.description,
        total: input.amount.total,
        trade_state: 'NOTPAY',
        notify_url: input.notify_url,
        code_url: `weixin://wxpay/bizpayurl?pr=${randomBytes(6).toString('hex')}`,
        success_time: null,
      };
      orders.set(order.out_trade_no, order);
      return answer(res, 200, { code_url: order.code_url });
    }
    if (req.method === 'POST' && url.pathname === '/v3/transfer/batches') return transferBatch(res, req, JSON.parse(body));
    const detail = /^\/v3\/transfer\/batches\/out-batch-no\/([^/]+)\/details\/out-detail-no\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && detail) {
      const t = transfers.get(decodeURIComponent(detail[1]!));
      if (!t || t.out_detail_no !== decodeURIComponent(detail[2]!)) return answer(res, 404, { code: 'NOT_FOUND', message: '记录不存在' });
      return answer(res, 200, {
        mchid: mchId,
        out_batch_no: t.out_batch_no,
        batch_id: t.batch_id,
        appid: appId,
        out_detail_no: t.out_detail_no,
        detail_id: t.detail_id,
        detail_status: t.detail_status,
        transfer_amount: t.transfer_amount,
        transfer_remark: '账户提现',
        openid: t.openid,
        initiate_time: wechatTime(),
        update_time: wechatTime(),
        ...(t.fail_reason ? { fail_reason: t.fail_reason } : {}),
      });
    }
    const match = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)(\/close)?$/.exec(url.pathname);
    if (match) {
      const order = orders.get(decodeURIComponent(match[1]!));
      if (!order) return answer(res, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
      if (req.method === 'GET' && !match[2]) return answer(res, 200, transactionOf(order));
      if (req.method === 'POST' && match[2]) {
        if (order.trade_state === 'SUCCESS') return answer(res, 400, { code: 'ORDER_PAID', message: '订单已支付' });
        order.trade_state = 'CLOSED';
        return answer(res, 204);
      }
    }
    return answer(res, 404, { code: 'NOT_FOUND', message: '无此接口' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  function callbackFor(outTradeNo: string, transaction: Record<string, unknown> = {}) {
    const order = orders.get(outTradeNo);
    if (!order) throw new Error(`no order ${outTradeNo}`);
    const body = JSON.stringify({
      id: randomBytes(16).toString('hex'),
      create_time: wechatTime(),
      resource_type: 'encrypt-resource',
      event_type: 'TRANSACTION.SUCCESS',
      summary: '支付成功',
      resource: { original_type: 'transaction', ...encrypt(JSON.stringify({ ...transactionOf(order), ...transaction }), 'transaction') },
    });
    return { headers: signedHeaders(body), body };
  }

  async function sendCallback(notifyUrl: string, callback: { headers: Record<string, string>; body: string }) {
    const target = new URL(notifyUrl);
    const to = notificationBase ? new URL(target.pathname + target.search, notificationBase) : target;
    const res = await fetch(to, { method: 'POST', headers: { 'content-type': 'application/json', ...callback.headers }, body: callback.body });
    return { status: res.status, text: await res.text() };
  }

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    appId,
    mchId,
    merchantPrivateKey: merchant.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    merchantCertificate,
    apiV3Key,
    platformSerial,
    orders,
    refusedRequests,
    transfers,
    transferRequests,
    setTransferMode(mode, failReason) {
      transferMode = mode;
      if (failReason) transferFailReason = failReason;
    },
    routeNotificationsTo(baseUrl) {
      notificationBase = baseUrl;
    },
    async pay(outTradeNo, opts = {}) {
      const order = orders.get(outTradeNo);
      if (!order) throw new Error(`no order ${outTradeNo}`);
      if (order.trade_state !== 'NOTPAY') throw new Error(`order ${outTradeNo} is ${order.trade_state}`);
      order.trade_state = 'SUCCESS';
      order.success_time = wechatTime();
      if (opts.deliver === false) return null;
      return sendCallback(order.notify_url, callbackFor(outTradeNo));
    },
    callbackFor,
    sendCallback,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
