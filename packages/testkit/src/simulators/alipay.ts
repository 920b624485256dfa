import { createSign, createVerify, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alipayCertSn, certificateAuthority } from './certificates';
import { readBody } from './simulator-server';

/**
 * A local stand-in for the Alipay open platform gateway (OpenAPI 2.0, `gateway.do`), speaking its wire
 * format: requests carry their public parameters in the query string and `biz_content` in a form body,
 * signed RSA2 (SHA256withRSA over the sorted `key=value` pairs, `sign` left out) with the app's private
 * key, which the simulator CHECKS with the app's public key; answers are `{"<method>_response":{…},"sign":…}`
 * signed with the simulator's own "Alipay" private key; asynchronous notifications are form posts to the
 * `notify_url`, signed RSA2 over the sorted pairs without `sign` and `sign_type`. Keys are made per run.
 *
 * In certificate mode (公钥证书, which Alipay's fund APIs require) the run also has a root
 * certificate and two it issued, the app's and "Alipay's" public key certificates: a request
 * without the app certificate's and the root's serial numbers (`app_cert_sn`, `alipay_root_cert_sn`)
 * is refused, and answers carry `alipay_cert_sn`, signed with the key Alipay's certificate certifies.
 */

type TradeStatus = 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED' | 'TRADE_FINISHED';

export interface SimulatedTrade {
  out_trade_no: string;
  trade_no: string;
  total_amount: string;
  subject: string;
  status: TradeStatus;
  notify_url: string | null;
  qr_code: string;
  gmt_payment: string | null;
}

/**
 * How the next transfers end: `success`; `fail` (made and failed, a FAIL with `failReason`);
 * `unknown` (paid while the answer is lost: a 504); `system_error` (paid, answered 40004
 * SYSTEM_ERROR); `inconsistent` (paid, answered 40004 PAYMENT_INFO_INCONSISTENCY, as for a number
 * Alipay holds with other details); `refuse` (nothing made, answered 40004 `failReason`);
 * `returned` (paid and returned at once, REFUND, while the answer is lost).
 */
export type TransferMode = 'success' | 'fail' | 'unknown' | 'system_error' | 'inconsistent' | 'refuse' | 'returned';

export interface SimulatedTransfer {
  out_biz_no: string;
  order_id: string;
  pay_fund_order_id: string;
  trans_amount: string;
  payee_identity: string;
  payee_name: string | null;
  status: 'SUCCESS' | 'FAIL' | 'REFUND';
  fail_reason: string | null;
  trans_date: string;
}

export interface AlipaySimulator {
  /** the gateway URL to give the SDK as `gateway` */
  gatewayUrl: string;
  appId: string;
  /** the app's key pair: the wallet signs with the private key, the simulator checks with the public one */
  appPrivateKey: string;
  appPublicKey: string;
  /** the public key of the simulator's "Alipay" key, which the wallet verifies answers and notifications with */
  alipayPublicKey: string;
  /** certificate mode only: the app's public key certificate, Alipay's public key certificate, the root certificate (PEM) */
  certificates: { appCert: string; alipayPublicCert: string; rootCert: string } | null;
  trades: Map<string, SimulatedTrade>;
  transfers: Map<string, SimulatedTransfer>;
  /** every request the simulator refused for its signature or app id */
  refusedRequests: string[];
  /** how many transfer requests arrived per out_biz_no (a payout must never be sent twice) */
  transferRequests: Map<string, number>;
  /** where notifications go instead of the notify_url's own origin (the test gateway's URL is known only once it runs) */
  routeNotificationsTo(baseUrl: string): void;
  /** The buyer pays: the trade succeeds and, unless `deliver` is false, its notification is posted. */
  pay(outTradeNo: string, opts?: { deliver?: boolean }): Promise<{ status: number; text: string } | null>;
  /** The signed form fields of a trade's notification, as Alipay would post them (tests may alter them after signing). */
  notificationFor(outTradeNo: string, overrides?: Record<string, string>): Record<string, string>;
  sendNotification(notifyUrl: string, fields: Record<string, string>): Promise<{ status: number; text: string }>;
  /** how the next transfers end (TransferMode) */
  setTransferMode(mode: TransferMode, failReason?: string): void;
  /** Alipay returns a paid transfer to the payer (退票): its status becomes REFUND */
  refundTransfer(outBizNo: string): void;
  /** while true, every transfer query answers 40004 SYSTEM_ERROR (Alipay cannot say) */
  setQueriesFailing(failing: boolean): void;
  /** every transfer call and query that passed the signature checks, in order, with when it arrived (ms) */
  transferCalls: Array<{ method: 'alipay.fund.trans.uni.transfer' | 'alipay.fund.trans.common.query'; outBizNo: string; at: number }>;
  stop(): Promise<void>;
}

/** `yyyy-MM-dd HH:mm:ss` in China time, as Alipay writes times. */
function alipayTime(at = new Date()): string {
  const t = new Date(at.getTime() + 8 * 3600_000).toISOString();
  return `${t.slice(0, 10)} ${t.slice(11, 19)}`;
}

function signContent(fields: Record<string, string>, omit: string[]): string {
  return Object.keys(fields)
    .filter((k) => !omit.includes(k) && fields[k] !== undefined && fields[k] !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
}

/** The certificates of a certificate-mode run, and the serial numbers requests must carry. */
/** `appKey`, `alipayKey`: the private keys whose public halves the certificates certify (a request for a certificate is signed by its key). */
function issueCertificates(appId: string, appKey: KeyObject, alipayKey: KeyObject) {
  const ca = certificateAuthority(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, '/C=CN/O=Ant Financial simulator/OU=Certification Authority/CN=Ant Financial Certification Authority R1 simulator');
  try {
    const appCert = ca.issue(appKey, `/C=CN/O=Market simulator app/OU=Alipay/CN=${appId}`);
    const alipayPublicCert = ca.issue(alipayKey, '/C=CN/O=Ant Financial simulator/OU=Alipay/CN=Ant Financial Alipay Public Key simulator');
    return {
      certificates: { appCert, alipayPublicCert, rootCert: ca.root },
      appCertSn: alipayCertSn(appCert),
      rootCertSn: alipayCertSn(ca.root),
      alipayCertSn: alipayCertSn(alipayPublicCert),
    };
  } finally {
    ca.dispose();
  }
}

export async function startAlipaySimulator(opts: { appId?: string; certificateMode?: boolean } = {}): Promise<AlipaySimulator> {
  const appKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alipayKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const appId = opts.appId ?? `2021${String(Date.now()).slice(-12)}`;
  const certs = opts.certificateMode ? issueCertificates(appId, appKeys.privateKey, alipayKeys.privateKey) : null;
  const appPublicKey = appKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const alipayPrivateKey = alipayKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const trades = new Map<string, SimulatedTrade>();
  const transfers = new Map<string, SimulatedTransfer>();
  const transferRequests = new Map<string, number>();
  const refusedRequests: string[] = [];
  let notificationBase: string | null = null;
  let transferMode: TransferMode = 'success';
  let transferFailReason = 'PAYEE_NOT_EXIST';
  let queriesFailing = false;
  const transferCalls: AlipaySimulator['transferCalls'] = [];

  const rsaSign = (content: string) => createSign('RSA-SHA256').update(content, 'utf8').sign(alipayPrivateKey, 'base64');

  function respond(res: ServerResponse, method: string, body: Record<string, unknown>) {
    const key = `${method.replaceAll('.', '_')}_response`;
    const json = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json;charset=utf-8' });
    const certSn = certs ? `"alipay_cert_sn":"${certs.alipayCertSn}",` : '';
    res.end(`{"${key}":${json},${certSn}"sign":"${rsaSign(json)}"}`);
  }

  const fail = (code: string, msg: string, subCode: string, subMsg: string) => ({ code, msg, sub_code: subCode, sub_msg: subMsg });
  const notFound = (subCode: string, subMsg: string) => fail('40004', 'Business Failed', subCode, subMsg);

  function precreate(biz: Record<string, any>, notifyUrl: string | null) {
    const existing = trades.get(biz.out_trade_no);
    if (existing) {
      if (existing.total_amount !== biz.total_amount) return notFound('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改');
      return { code: '10000', msg: 'Success', out_trade_no: existing.out_trade_no, qr_code: existing.qr_code };
    }
    if (!/^\d+(\.\d{1,2})?$/.test(String(biz.total_amount ?? ''))) return fail('40002', 'Invalid Arguments', 'isv.invalid-parameter', 'total_amount');
    const trade: SimulatedTrade = {
      out_trade_no: biz.out_trade_no,
      trade_no: `2026${randomBytes(12).toString('hex')}`,
      total_amount: biz.total_amount,
      subject: biz.subject,
      status: 'WAIT_BUYER_PAY',
      notify_url: notifyUrl,
      qr_code: `https://qr.alipay.com/bax${randomBytes(10).toString('hex')}`,
      gmt_payment: null,
    };
    trades.set(trade.out_trade_no, trade);
    return { code: '10000', msg: 'Success', out_trade_no: trade.out_trade_no, qr_code: trade.qr_code };
  }

  function query(biz: Record<string, any>) {
    const trade = trades.get(biz.out_trade_no);
    if (!trade) return notFound('ACQ.TRADE_NOT_EXIST', '交易不存在');
    return {
      code: '10000',
      msg: 'Success',
      trade_no: trade.trade_no,
      out_trade_no: trade.out_trade_no,
      trade_status: trade.status,
      total_amount: trade.total_amount,
      buyer_logon_id: 'buy***@example.com',
      ...(trade.gmt_payment ? { send_pay_date: trade.gmt_payment } : {}),
    };
  }

  function close(biz: Record<string, any>) {
    const trade = trades.get(biz.out_trade_no);
    if (!trade) return notFound('ACQ.TRADE_NOT_EXIST', '交易不存在');
    if (trade.status !== 'WAIT_BUYER_PAY' && trade.status !== 'TRADE_CLOSED') return notFound('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
    trade.status = 'TRADE_CLOSED';
    return { code: '10000', msg: 'Success', trade_no: trade.trade_no, out_trade_no: trade.out_trade_no };
  }

  const failFor = (t: SimulatedTransfer) => notFound(t.fail_reason!, '收款方信息有误');

  function transferView(t: SimulatedTransfer) {
    return { code: '10000', msg: 'Success', out_biz_no: t.out_biz_no, order_id: t.order_id, pay_fund_order_id: t.pay_fund_order_id, status: t.status, trans_date: t.trans_date };
  }

  /** Returns null when the answer is to be lost (the transfer was made, the caller cannot know). */
  function transfer(biz: Record<string, any>) {
    transferRequests.set(biz.out_biz_no, (transferRequests.get(biz.out_biz_no) ?? 0) + 1);
    const payee = biz.payee_info ?? {};
    const known = transfers.get(biz.out_biz_no);
    if (known) {
      // Alipay pays one out_biz_no once; the same number with other details is refused
      if (known.trans_amount !== biz.trans_amount || known.payee_identity !== payee.identity || known.payee_name !== (payee.name ?? null)) {
        return notFound('PAYMENT_INFO_INCONSISTENCY', '两次请求商户单号一样，但是参数不一致');
      }
      return known.status === 'FAIL' ? failFor(known) : transferView(known);
    }
    if (!/^\d+(\.\d{1,2})?$/.test(String(biz.trans_amount ?? ''))) return fail('40002', 'Invalid Arguments', 'isv.invalid-parameter', 'trans_amount');
    if (transferMode === 'refuse') return notFound(transferFailReason, '转账被拒绝');
    const t: SimulatedTransfer = {
      out_biz_no: biz.out_biz_no,
      order_id: `2026${randomBytes(10).toString('hex')}`,
      pay_fund_order_id: `2026${randomBytes(10).toString('hex')}`,
      trans_amount: biz.trans_amount,
      payee_identity: payee.identity,
      payee_name: payee.name ?? null,
      status: transferMode === 'fail' ? 'FAIL' : 'SUCCESS',
      fail_reason: transferMode === 'fail' ? transferFailReason : null,
      trans_date: alipayTime(),
    };
    transfers.set(t.out_biz_no, t);
    if (transferMode === 'returned') {
      t.status = 'REFUND';
      t.fail_reason = 'PAYEE_ACCOUNT_STATUS_ERROR';
    }
    if (transferMode === 'unknown' || transferMode === 'returned') return null;
    if (transferMode === 'system_error') return notFound('SYSTEM_ERROR', '系统繁忙');
    if (transferMode === 'inconsistent') return notFound('PAYMENT_INFO_INCONSISTENCY', '两次请求商户单号一样，但是参数不一致');
    return t.status === 'SUCCESS' ? transferView(t) : failFor(t);
  }

  function transferQuery(biz: Record<string, any>) {
    if (queriesFailing) return notFound('SYSTEM_ERROR', '系统繁忙');
    const t = transfers.get(biz.out_biz_no);
    if (!t) return notFound('ORDER_NOT_EXIST', '转账订单不存在');
    return { ...transferView(t), ...(t.fail_reason ? { fail_reason: t.fail_reason, error_code: t.fail_reason } : {}) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const body = (await readBody(req)).toString('utf8');
    const fields: Record<string, string> = {};
    for (const [k, v] of url.searchParams) fields[k] = v;
    for (const [k, v] of new URLSearchParams(body)) fields[k] = v;
    const method = fields.method ?? 'unknown';
    const verified =
      fields.sign !== undefined &&
      createVerify('RSA-SHA256').update(signContent(fields, ['sign']), 'utf8').verify(appPublicKey, fields.sign, 'base64');
    if (!verified || fields.app_id !== appId || fields.sign_type !== 'RSA2') {
      refusedRequests.push(method);
      return respond(res, method, fail('40002', 'Invalid Arguments', 'isv.invalid-signature', '验签出错'));
    }
    if (certs && (fields.app_cert_sn !== certs.appCertSn || fields.alipay_root_cert_sn !== certs.rootCertSn)) {
      refusedRequests.push(method);
      return respond(res, method, fail('40002', 'Invalid Arguments', 'isv.app-cert-sn-invalid', '应用公钥证书序列号或支付宝根证书序列号不匹配'));
    }
    let biz: Record<string, any>;
    try {
      biz = JSON.parse(fields.biz_content ?? '{}');
    } catch {
      return respond(res, method, fail('40002', 'Invalid Arguments', 'isv.invalid-parameter', 'biz_content'));
    }
    switch (method) {
      case 'alipay.trade.precreate':
        return respond(res, method, precreate(biz, fields.notify_url ?? null));
      case 'alipay.trade.query':
        return respond(res, method, query(biz));
      case 'alipay.trade.close':
        return respond(res, method, close(biz));
      case 'alipay.fund.trans.uni.transfer': {
        transferCalls.push({ method, outBizNo: String(biz.out_biz_no), at: Date.now() });
        const answer = transfer(biz);
        if (!answer) {
          res.writeHead(504).end('gateway timeout');
          return;
        }
        return respond(res, method, answer);
      }
      case 'alipay.fund.trans.common.query':
        transferCalls.push({ method, outBizNo: String(biz.out_biz_no), at: Date.now() });
        return respond(res, method, transferQuery(biz));
      default:
        return respond(res, method, fail('40004', 'Business Failed', 'isv.invalid-method', '不存在的方法名'));
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  function notificationFor(outTradeNo: string, overrides: Record<string, string> = {}): Record<string, string> {
    const trade = trades.get(outTradeNo);
    if (!trade) throw new Error(`no trade ${outTradeNo}`);
    const fields: Record<string, string> = {
      notify_time: alipayTime(),
      notify_type: 'trade_status_sync',
      notify_id: randomBytes(16).toString('hex'),
      app_id: appId,
      charset: 'utf-8',
      version: '1.0',
      trade_no: trade.trade_no,
      out_trade_no: trade.out_trade_no,
      trade_status: trade.status,
      total_amount: trade.total_amount,
      receipt_amount: trade.total_amount,
      buyer_id: '2088102177846875',
      seller_id: '2088101117955611',
      subject: trade.subject,
      ...(trade.gmt_payment ? { gmt_payment: trade.gmt_payment } : {}),
      ...overrides,
    };
    return { ...fields, sign_type: 'RSA2', sign: rsaSign(signContent(fields, ['sign', 'sign_type'])) };
  }

  async function sendNotification(notifyUrl: string, fields: Record<string, string>) {
    const target = new URL(notifyUrl);
    const to = notificationBase ? new URL(target.pathname + target.search, notificationBase) : target;
    const res = await fetch(to, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, text: await res.text() };
  }

  return {
    gatewayUrl: `http://127.0.0.1:${port}/gateway.do`,
    appId,
    appPrivateKey: appKeys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    appPublicKey,
    alipayPublicKey: alipayKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    certificates: certs?.certificates ?? null,
    trades,
    transfers,
    refusedRequests,
    transferRequests,
    routeNotificationsTo(baseUrl) {
      notificationBase = baseUrl;
    },
    async pay(outTradeNo, payOpts = {}) {
      const trade = trades.get(outTradeNo);
      if (!trade) throw new Error(`no trade ${outTradeNo}`);
      if (trade.status !== 'WAIT_BUYER_PAY') throw new Error(`trade ${outTradeNo} is ${trade.status}`);
      trade.status = 'TRADE_SUCCESS';
      trade.gmt_payment = alipayTime();
      if (payOpts.deliver === false || !trade.notify_url) return null;
      return sendNotification(trade.notify_url, notificationFor(outTradeNo));
    },
    notificationFor,
    sendNotification,
    setTransferMode(mode, failReason) {
      transferMode = mode;
      if (failReason) transferFailReason = failReason;
    },
    transferCalls,
    setQueriesFailing(failing) {
      queriesFailing = failing;
    },
    refundTransfer(outBizNo) {
      const t = transfers.get(outBizNo);
      if (!t || t.status !== 'SUCCESS') throw new Error(`no paid transfer ${outBizNo}`);
      t.status = 'REFUND';
      t.fail_reason = 'PAYEE_ACCOUNT_STATUS_ERROR';
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
