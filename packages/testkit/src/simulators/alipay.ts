import { createSign, createVerify, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { zipSync } from 'fflate';
import { encode as encodeText } from 'iconv-lite';
import { alipayCertSn, certificateAuthority } from './certificates';
import { merchantNotifications } from './merchant-notifications';
import { recordIn, recordOf } from './simulated-records';
import { readBody } from './simulator-server';
import { simulatorKeyPair } from './key-pairs';

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

/**
 * How the next refunds end: `success` (refunded, answered with fund_change Y); `system_error`
 * (refunded, answered 40004 ACQ.SYSTEM_ERROR); `system_error_before` (nothing refunded, answered
 * 40004 ACQ.SYSTEM_ERROR); `busy` (refunded, answered code 20000); `lost` (refunded, the answer lost: a 504).
 */
export type RefundMode = 'success' | 'system_error' | 'system_error_before' | 'busy' | 'lost';

export interface SimulatedRefund {
  out_trade_no: string;
  out_request_no: string;
  trade_no: string;
  refund_amount: string;
  refund_reason: string | null;
  gmt_refund_pay: string;
}

/** A line a test puts into a day's bill that Alipay's records do not have (as another system on the same account would). */
export interface ExtraBillLine {
  kind: 'payment' | 'refund' | 'transfer';
  /** 商户订单号 (payments, transfers) or 退款批次号/请求号 (refunds) */
  reference: string;
  /** yuan, two decimals */
  amount: string;
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
  /** the refunds made, by out_request_no (one per number, however often it was asked for) */
  refunds: Map<string, SimulatedRefund>;
  /** how many refund requests arrived per out_request_no */
  refundRequests: Map<string, number>;
  /** how the next refunds end (RefundMode) */
  setRefundMode(mode: RefundMode): void;
  /** while true, every refund query answers 40004 ACQ.SYSTEM_ERROR */
  setRefundQueriesFailing(failing: boolean): void;
  /** while a day is withheld its bills are not out yet (40004 isv.bill_not_exist) */
  withholdBill(day: string, withheld?: boolean): void;
  /** Leaves out of a day's bills the line whose merchant number is `reference` (as if Alipay had not booked it). */
  dropBillLine(day: string, reference: string): void;
  /** Adds a line to a day's bills that no record here has. */
  addBillLine(day: string, line: ExtraBillLine): void;
  stop(): Promise<void>;
}

/** `yyyy-MM-dd HH:mm:ss` in China time, as Alipay writes times. */
function alipayTime(at = new Date()): string {
  const t = new Date(at.getTime() + 8 * 3600_000).toISOString();
  return `${t.slice(0, 10)} ${t.slice(11, 19)}`;
}

/** The Shanghai day (`YYYY-MM-DD`) of an Alipay time. */
const dayOf = (time: string | null) => (time ?? '').slice(0, 10);

/** Alipay's service fee on a payment in this simulator: 0.6 %, to the fen, half up. */
const feeOf = (yuan: string) => ((Math.round(Number(yuan) * 100 * 0.006) / 100).toFixed(2));

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
  const ca = certificateAuthority(simulatorKeyPair().privateKey, '/C=CN/O=Ant Financial simulator/OU=Certification Authority/CN=Ant Financial Certification Authority R1 simulator');
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
  const appKeys = simulatorKeyPair();
  const alipayKeys = simulatorKeyPair();
  const appId = opts.appId ?? `2021${String(Date.now()).slice(-12)}`;
  const certs = opts.certificateMode ? issueCertificates(appId, appKeys.privateKey, alipayKeys.privateKey) : null;
  const appPublicKey = appKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const alipayPrivateKey = alipayKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const trades = new Map<string, SimulatedTrade>();
  const transfers = new Map<string, SimulatedTransfer>();
  const transferRequests = new Map<string, number>();
  const refusedRequests: string[] = [];
  const notifications = merchantNotifications();
  let transferMode: TransferMode = 'success';
  let transferFailReason = 'PAYEE_NOT_EXIST';
  let queriesFailing = false;
  const transferCalls: AlipaySimulator['transferCalls'] = [];
  const refunds = new Map<string, SimulatedRefund>();
  const refundRequests = new Map<string, number>();
  let refundMode: RefundMode = 'success';
  let refundQueriesFailing = false;
  const withheldDays = new Set<string>();
  const droppedLines = new Map<string, Set<string>>();
  const extraLines = new Map<string, ExtraBillLine[]>();
  const billFiles = new Map<string, Uint8Array>();
  let port = 0;

  const rsaSign = (content: string) => createSign('RSA-SHA256').update(content, 'utf8').sign(alipayPrivateKey, 'base64');

  function respond(res: ServerResponse, method: string, body: Record<string, unknown>) {
    const key = `${method.replaceAll('.', '_')}_response`;
    const json = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json;charset=utf-8' });
    const certSn = certs ? `"alipay_cert_sn":"${certs.alipayCertSn}",` : '';
    res.end(`{"${key}":${json},${certSn}"sign":"${rsaSign(json)}"}`);
  }

  /** Answers a call that moved money, or, when the simulated answer was lost (null), a gateway timeout: the caller cannot know what happened. */
  function respondUnlessLost(res: ServerResponse, method: string, answer: Record<string, unknown> | null) {
    if (answer) respond(res, method, answer);
    else res.writeHead(504).end('gateway timeout');
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

  const toFen = (yuan: string) => Math.round(Number(yuan) * 100);

  /** Returns null when the answer is to be lost (the refund was made, the caller cannot know). */
  function refund(biz: Record<string, any>) {
    refundRequests.set(biz.out_request_no, (refundRequests.get(biz.out_request_no) ?? 0) + 1);
    const trade = trades.get(biz.out_trade_no);
    if (!trade) return notFound('ACQ.TRADE_NOT_EXIST', '交易不存在');
    if (!/^\d+(\.\d{1,2})?$/.test(String(biz.refund_amount ?? '')) || !biz.out_request_no) return fail('40002', 'Invalid Arguments', 'isv.invalid-parameter', 'refund_amount');
    const done = refunds.get(biz.out_request_no);
    const answerOf = (r: SimulatedRefund, fundChange: 'Y' | 'N') => ({
      code: '10000',
      msg: 'Success',
      trade_no: trade.trade_no,
      out_trade_no: trade.out_trade_no,
      buyer_logon_id: 'buy***@example.com',
      fund_change: fundChange,
      refund_fee: r.refund_amount,
      gmt_refund_pay: r.gmt_refund_pay,
    });
    // Alipay refunds one out_request_no once: a repeat is answered without moving money again
    if (done) return done.refund_amount === biz.refund_amount ? answerOf(done, 'N') : notFound('ACQ.DISCORDANT_REPEAT_REQUEST', '请求信息不一致');
    if (refundMode === 'system_error_before') return notFound('ACQ.SYSTEM_ERROR', '系统错误');
    if (trade.status !== 'TRADE_SUCCESS') return notFound('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
    const refunded = [...refunds.values()].filter((r) => r.out_trade_no === trade.out_trade_no).reduce((sum, r) => sum + toFen(r.refund_amount), 0);
    if (refunded + toFen(biz.refund_amount) > toFen(trade.total_amount)) return notFound('ACQ.REASON_TRADE_REFUND_FEE_ERR', '退款金额无效');
    const made: SimulatedRefund = {
      out_trade_no: trade.out_trade_no,
      out_request_no: biz.out_request_no,
      trade_no: trade.trade_no,
      refund_amount: biz.refund_amount,
      refund_reason: biz.refund_reason ?? null,
      gmt_refund_pay: alipayTime(),
    };
    refunds.set(made.out_request_no, made);
    if (refundMode === 'lost') return null;
    if (refundMode === 'system_error') return notFound('ACQ.SYSTEM_ERROR', '系统错误');
    if (refundMode === 'busy') return fail('20000', 'Service Currently Unavailable', 'isp.unknow-error', '系统繁忙');
    return answerOf(made, 'Y');
  }

  function refundQuery(biz: Record<string, any>) {
    if (refundQueriesFailing) return notFound('ACQ.SYSTEM_ERROR', '系统错误');
    const trade = trades.get(biz.out_trade_no);
    if (!trade) return notFound('ACQ.TRADE_NOT_EXIST', '交易不存在');
    const r = refunds.get(biz.out_request_no);
    // Alipay answers an unknown refund number with success, the trade echoed and no refund_status
    if (!r || r.out_trade_no !== trade.out_trade_no) {
      return { code: '10000', msg: 'Success', trade_no: trade.trade_no, out_trade_no: trade.out_trade_no, out_request_no: biz.out_request_no };
    }
    const wantsTime = Array.isArray(biz.query_options) && biz.query_options.includes('gmt_refund_pay');
    return {
      code: '10000',
      msg: 'Success',
      trade_no: trade.trade_no,
      out_trade_no: trade.out_trade_no,
      out_request_no: r.out_request_no,
      total_amount: trade.total_amount,
      refund_amount: r.refund_amount,
      refund_status: 'REFUND_SUCCESS',
      ...(wantsTime ? { gmt_refund_pay: r.gmt_refund_pay } : {}),
    };
  }

  const cell = (value: string) => `${value}\t`;

  /**
   * A detail list (明细) of a day as Alipay frames it, the trade bill's (业务) or the account flow's
   * (账务): comments naming it, the account and the day, then `header` and `rows` between its
   * markers, then the count under `totalLabel` and the export time.
   */
  function detailCsv(list: '业务' | '账务', day: string, header: string, rows: string[], totalLabel: string): string {
    return [
      `#支付宝${list}明细查询`,
      '#账号：[20881234567890120156]',
      `#起始日期：[${day} 00:00:00]   终止日期：[${day} 23:59:59]`,
      `#-----------------------------------------${list}明细列表----------------------------------------`,
      header,
      ...rows,
      `#-----------------------------------------${list}明细列表结束------------------------------------`,
      `#${totalLabel}：${rows.length}笔`,
      `#导出时间：[${alipayTime()}]`,
    ].join('\r\n');
  }

  /** The trade bill's detail list of a day, in Alipay's layout: comments, header, rows, end and totals. */
  function tradeBillCsv(day: string, dropped: Set<string>, extra: ExtraBillLine[]): string {
    const header = '支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,门店编号,门店名称,操作员,终端号,对方账户,订单金额（元）,商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,商家优惠（元）,券核销金额（元）,券名称,商家红包消费金额（元）,卡消费金额（元）,退款批次号/请求号,服务费（元）,分润（元）,备注';
    const row = (tradeNo: string, outTradeNo: string, kind: '交易' | '退款', at: string, total: string, received: string, requestNo: string, fee: string) =>
      [tradeNo, outTradeNo, kind, '钱包充值', at, at, '', '', '', '', 'buy***@example.com', total, received, '0.00', '0.00', '0.00', '0.00', '0.00', '', '0.00', '0.00', requestNo, fee, '0.00', ''].map(cell).join(',');
    const rows: string[] = [];
    for (const t of trades.values()) {
      if (t.gmt_payment && dayOf(t.gmt_payment) === day && !dropped.has(t.out_trade_no)) rows.push(row(t.trade_no, t.out_trade_no, '交易', t.gmt_payment, t.total_amount, t.total_amount, '', `-${feeOf(t.total_amount)}`));
    }
    for (const r of refunds.values()) {
      const t = trades.get(r.out_trade_no)!;
      if (dayOf(r.gmt_refund_pay) === day && !dropped.has(r.out_request_no)) rows.push(row(r.trade_no, r.out_trade_no, '退款', r.gmt_refund_pay, t.total_amount, `-${r.refund_amount}`, r.out_request_no, feeOf(r.refund_amount)));
    }
    for (const x of extra.filter((e) => e.kind !== 'transfer')) {
      const at = `${day} 12:00:00`;
      const tradeNo = `2026${randomBytes(12).toString('hex')}`;
      rows.push(x.kind === 'payment' ? row(tradeNo, x.reference, '交易', at, x.amount, x.amount, '', `-${feeOf(x.amount)}`) : row(tradeNo, '', '退款', at, x.amount, `-${x.amount}`, x.reference, feeOf(x.amount)));
    }
    return detailCsv('业务', day, header, rows, '交易合计');
  }

  /** The trade bill's summary (汇总): read by no one here, present as in Alipay's zip. */
  function tradeSummaryCsv(day: string): string {
    return ['#支付宝业务汇总查询', `#起始日期：[${day} 00:00:00]   终止日期：[${day} 23:59:59]`, '门店编号,门店名称,交易订单总笔数,退款订单总笔数,订单金额（元）,商家实收（元）', '合计,,0,0,0.00,0.00', '#导出时间：[' + alipayTime() + ']'].join('\r\n');
  }

  /** The account flow (账务明细) of a day: each transfer paid out as an expense, 商户订单号 its out_biz_no. */
  function accountFlowCsv(day: string, dropped: Set<string>, extra: ExtraBillLine[]): string {
    const header = '账务流水号,业务流水号,商户订单号,商品名称,发生时间,对方账号,收入金额（+元）,支出金额（-元）,账户余额（元）,交易渠道,业务类型,备注';
    const row = (outBizNo: string, orderId: string, at: string, amount: string) =>
      [`2026${randomBytes(10).toString('hex')}`, orderId, outBizNo, '账户提现', at, 'payee***@example.com', '0.00', `-${amount}`, '0.00', '支付宝', '转账', ''].map(cell).join(',');
    const rows: string[] = [];
    for (const t of transfers.values()) {
      if (t.status === 'SUCCESS' && dayOf(t.trans_date) === day && !dropped.has(t.out_biz_no)) rows.push(row(t.out_biz_no, t.order_id, t.trans_date, t.trans_amount));
    }
    for (const x of extra.filter((e) => e.kind === 'transfer')) rows.push(row(x.reference, `2026${randomBytes(10).toString('hex')}`, `${day} 12:00:00`, x.amount));
    return detailCsv('账务', day, header, rows, '支出合计');
  }

  /** The bill of a day as Alipay makes it: a zip of GBK CSVs, served once at a short-lived link. */
  function billDownload(biz: Record<string, any>) {
    const day = String(biz.bill_date ?? '');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !['trade', 'signcustomer'].includes(biz.bill_type)) return fail('40002', 'Invalid Arguments', 'isv.invalid-parameter', 'bill_type/bill_date');
    if (withheldDays.has(day)) return notFound('isv.bill_not_exist', '账单不存在');
    const dropped = droppedLines.get(day) ?? new Set<string>();
    const extra = extraLines.get(day) ?? [];
    const name = `20881234567890120156_${day.replaceAll('-', '')}`;
    const gbk = (text: string) => new Uint8Array(encodeText(text, 'gbk'));
    const files: Record<string, Uint8Array> =
      biz.bill_type === 'trade'
        ? { [`${name}_业务明细.csv`]: gbk(tradeBillCsv(day, dropped, extra)), [`${name}_业务明细(汇总).csv`]: gbk(tradeSummaryCsv(day)) }
        : { [`${name}_账务明细.csv`]: gbk(accountFlowCsv(day, dropped, extra)) };
    const fileId = randomBytes(12).toString('hex');
    billFiles.set(fileId, zipSync(files));
    return {
      code: '10000',
      msg: 'Success',
      bill_download_url: `http://127.0.0.1:${port}/downloadBillFile.resource?bizType=${biz.bill_type}&fileType=csv.zip&fileId=${fileId}`,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const body = (await readBody(req)).toString('utf8');
    if (url.pathname === '/downloadBillFile.resource') {
      // the link Alipay hands out is good for one download (it expires within seconds)
      const file = billFiles.get(url.searchParams.get('fileId') ?? '');
      billFiles.delete(url.searchParams.get('fileId') ?? '');
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/zip' });
      return void res.end(file);
    }
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
      case 'alipay.fund.trans.uni.transfer':
        transferCalls.push({ method, outBizNo: String(biz.out_biz_no), at: Date.now() });
        return respondUnlessLost(res, method, transfer(biz));
      case 'alipay.fund.trans.common.query':
        transferCalls.push({ method, outBizNo: String(biz.out_biz_no), at: Date.now() });
        return respond(res, method, transferQuery(biz));
      case 'alipay.trade.refund':
        return respondUnlessLost(res, method, refund(biz));
      case 'alipay.trade.fastpay.refund.query':
        return respond(res, method, refundQuery(biz));
      case 'alipay.data.dataservice.bill.downloadurl.query':
        return respond(res, method, billDownload(biz));
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
  ({ port } = server.address() as AddressInfo);

  function notificationFor(outTradeNo: string, overrides: Record<string, string> = {}): Record<string, string> {
    const trade = recordOf(trades, 'trade', outTradeNo);
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

  function sendNotification(notifyUrl: string, fields: Record<string, string>) {
    return notifications.deliver(notifyUrl, { headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' }, body: new URLSearchParams(fields).toString() });
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
    routeNotificationsTo: notifications.routeTo,
    async pay(outTradeNo, payOpts = {}) {
      const trade = recordIn(trades, 'trade', outTradeNo, (t) => t.status, 'WAIT_BUYER_PAY');
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
    refunds,
    refundRequests,
    setRefundMode(mode) {
      refundMode = mode;
    },
    setRefundQueriesFailing(failing) {
      refundQueriesFailing = failing;
    },
    withholdBill(day, withheld = true) {
      if (withheld) withheldDays.add(day);
      else withheldDays.delete(day);
    },
    dropBillLine(day, reference) {
      droppedLines.set(day, (droppedLines.get(day) ?? new Set()).add(reference));
    },
    addBillLine(day, line) {
      extraLines.set(day, [...(extraLines.get(day) ?? []), line]);
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
