import { constants, createCipheriv, createHash, createSign, createVerify, privateDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { merchantNotifications } from './merchant-notifications';
import { recordIn, recordOf } from './simulated-records';
import { readBody } from './simulator-server';
import { simulatorKeyPair } from './key-pairs';

/**
 * A local stand-in for WeChat Pay API v3 (`api.mch.weixin.qq.com`), speaking its wire format:
 * every request carries `Authorization: WECHATPAY2-SHA256-RSA2048 mchid=…,nonce_str=…,timestamp=…,
 * serial_no=…,signature=…` over `METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n`, which the simulator
 * CHECKS with the merchant certificate's key. Answers and callbacks are signed
 * (`Wechatpay-Timestamp/Nonce/Signature/Serial`) as the merchant's verification mode says: with the
 * WeChat Pay public key (serial `PUB_KEY_ID_…`, what new merchants get), with the platform
 * certificate's key (its serial number, older merchants), or — during a migration — either, as the
 * test switches. A callback's `resource` is encrypted AEAD_AES_256_GCM with the API v3 key.
 * Merchant transfers (`/v3/fund-app/mch-transfer/transfer-bills`), refunds and daily bills are
 * served too, with the awkward answers a test can ask for. Keys and certificates are made per run
 * (certificates with the openssl CLI).
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

/** How new transfers end: paid at once, refused (`fail_reason`), or waiting for the payee to confirm in WeChat. */
export type WechatTransferMode = 'success' | 'fail' | 'confirm';

export type WechatTransferState = 'ACCEPTED' | 'WAIT_USER_CONFIRM' | 'TRANSFERING' | 'SUCCESS' | 'FAIL' | 'CANCELING' | 'CANCELLED';

export interface SimulatedWechatTransfer {
  out_bill_no: string;
  transfer_bill_no: string;
  openid: string;
  /** the payee name as decrypted with the key `Wechatpay-Serial` named (it travels RSA-OAEP encrypted) */
  user_name: string | null;
  transfer_amount: number;
  transfer_scene_id: string;
  user_recv_perception: string;
  transfer_scene_report_infos: Array<{ info_type: string; info_content: string }>;
  notify_url: string | null;
  state: WechatTransferState;
  fail_reason: string | null;
  package_info: string | null;
  create_time: string;
  update_time: string;
}

export type WechatRefundStatus = 'SUCCESS' | 'CLOSED' | 'PROCESSING' | 'ABNORMAL';

export interface SimulatedWechatRefund {
  out_refund_no: string;
  refund_id: string;
  out_trade_no: string;
  refund: number;
  total: number;
  status: WechatRefundStatus;
  notify_url: string | null;
  create_time: string;
  success_time: string | null;
}

/**
 * An awkward answer to the next money-moving request (a transfer or a refund): `SYSTEM_ERROR` (500,
 * nothing made), `NOT_ENOUGH` (403, nothing made: the merchant's balance is short), `lost` (made, then
 * the connection is dropped before any answer), `stall` (made, never answered: the client times out),
 * `duplicate` (made, answered 400 INVALID_REQUEST as a number already used), `PARAM_ERROR` (400,
 * nothing made).
 */
export type WechatFault = 'SYSTEM_ERROR' | 'NOT_ENOUGH' | 'lost' | 'stall' | 'duplicate' | 'PARAM_ERROR';

/** How the simulator signs: the WeChat Pay public key, the platform certificate, or (a merchant moving between them) either. */
export type WechatSigningMode = 'publicKey' | 'certificate';

export interface WechatPaySimulator {
  /** what replaces `https://api.mch.weixin.qq.com` */
  baseUrl: string;
  appId: string;
  mchId: string;
  /** the merchant's API key and certificate (apiclient_key.pem, apiclient_cert.pem) */
  merchantPrivateKey: string;
  merchantCertificate: string;
  merchantSerial: string;
  apiV3Key: string;
  /** the WeChat Pay public key (微信支付公钥) and its id */
  publicKey: string;
  publicKeyId: string;
  /** the platform certificate (平台证书) and its serial number */
  platformCertificate: string;
  platformSerial: string;
  orders: Map<string, SimulatedWechatOrder>;
  refusedRequests: string[];
  transfers: Map<string, SimulatedWechatTransfer>;
  /** how many transfer requests arrived per out_bill_no */
  transferRequests: Map<string, number>;
  /** how many times each transfer was asked about by its out_bill_no */
  transferQueries: Map<string, number>;
  refunds: Map<string, SimulatedWechatRefund>;
  /** every movement of money out of the merchant: a test asserts "paid exactly once" on it */
  paid: Array<{ kind: 'transfer' | 'refund'; no: string; amount: number }>;
  signWith(mode: WechatSigningMode): void;
  setTransferMode(mode: WechatTransferMode, failReason?: string): void;
  /** how new refunds stand after they are accepted */
  setRefundStatus(status: WechatRefundStatus): void;
  /** awkward answers for the next money-moving requests, one each, before the truth */
  queueFaults(...faults: WechatFault[]): void;
  /** The payee confirms a transfer waiting for it in WeChat: it is paid and its callback posted (when it has a notify_url). */
  confirmTransfer(outBillNo: string): Promise<{ status: number; text: string } | null>;
  /** A refund still processing ends as `status`, and its callback is posted (when it has a notify_url). */
  finishRefund(outRefundNo: string, status: 'SUCCESS' | 'CLOSED' | 'ABNORMAL'): Promise<{ status: number; text: string } | null>;
  routeNotificationsTo(baseUrl: string): void;
  /** The payer pays: the order succeeds and, unless `deliver` is false, its callback is posted. */
  pay(outTradeNo: string, opts?: { deliver?: boolean }): Promise<{ status: number; text: string } | null>;
  /** A signed callback of the order as WeChat Pay would post it; `transaction` overrides fields of the encrypted resource. */
  callbackFor(outTradeNo: string, transaction?: Record<string, unknown>): { headers: Record<string, string>; body: string };
  /** A signed callback of a transfer's final state (`MCHTRANSFER.BILL.FINISHED`). */
  transferCallbackFor(outBillNo: string, fields?: Record<string, unknown>): { headers: Record<string, string>; body: string };
  /** A signed callback of a refund's state (`REFUND.SUCCESS`, `REFUND.CLOSED`, `REFUND.ABNORMAL`). */
  refundCallbackFor(outRefundNo: string): { headers: Record<string, string>; body: string };
  sendCallback(notifyUrl: string, callback: { headers: Record<string, string>; body: string }): Promise<{ status: number; text: string }>;
  /** Hides the day's bills, as WeChat Pay does until it has made them (`STATEMENT_CREATING`). */
  billsReady(ready: boolean): void;
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

/** A bill's time (`YYYY-MM-DD HH:mm:ss`, China time) from a WeChat Pay time. */
const billTime = (wechat: string) => wechat.slice(0, 19).replace('T', ' ');

/** Yuan with `decimals` places from an integer number of 10^-decimals yuan. */
function yuan(units: number, decimals: number): string {
  const scale = 10 ** decimals;
  const sign = units < 0 ? '-' : '';
  const abs = Math.abs(units);
  return `${sign}${Math.floor(abs / scale)}.${String(abs % scale).padStart(decimals, '0')}`;
}

/** WeChat Pay's bill layout: a byte-order mark, headers, rows and summary lines whose cells start with a backtick. */
function billCsv(headers: string[], rows: string[][], captions: string[], summary: string[]): Buffer {
  const line = (cells: string[]) => cells.map((c) => `\`${c}`).join(',');
  const text = [headers.join(','), ...rows.map(line), captions.join(','), line(summary), ''].join('\r\n');
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
}

const TRADE_BILL_HEADERS = [
  '交易时间', '公众账号ID', '商户号', '特约商户号', '设备号', '微信订单号', '商户订单号', '用户标识', '交易类型', '交易状态', '付款银行', '货币种类',
  '应结订单金额', '代金券金额', '微信退款单号', '商户退款单号', '退款金额', '充值券退款金额', '退款类型', '退款状态', '商品名称', '商户数据包',
  '手续费', '费率', '订单金额', '申请退款金额', '费率备注',
];
const FUND_FLOW_HEADERS = ['记账时间', '微信支付业务单号', '资金流水单号', '业务名称', '业务类型', '收支类型', '收支金额(元)', '账户结余(元)', '资金变更提交申请人', '备注', '业务凭证号'];

export async function startWechatPaySimulator(): Promise<WechatPaySimulator> {
  const merchant = simulatorKeyPair();
  const platform = simulatorKeyPair();
  const wechatKey = simulatorKeyPair();
  // 20-byte serials with a leading 1, so no DER sign byte changes how they print
  const merchantSerial = `1${randomBytes(19).toString('hex')}A`.toUpperCase();
  const platformSerial = `1${randomBytes(19).toString('hex')}B`.toUpperCase();
  const publicKeyId = `PUB_KEY_ID_0116${String(Date.now()).slice(-8)}${randomBytes(8).toString('hex').toUpperCase()}`;
  const mchId = `16${String(Date.now()).slice(-8)}`;
  const appId = `wx${randomBytes(8).toString('hex')}`;
  const apiV3Key = randomBytes(16).toString('hex');
  const merchantCertificate = certificateFor(merchant.privateKey, `/CN=${mchId}/O=WeChat Pay simulator merchant`, merchantSerial);
  const platformCertificate = certificateFor(platform.privateKey, '/CN=Tenpay.com Root CA simulator', platformSerial);
  const orders = new Map<string, SimulatedWechatOrder>();
  const refusedRequests: string[] = [];
  const transfers = new Map<string, SimulatedWechatTransfer>();
  const transferRequests = new Map<string, number>();
  const transferQueries = new Map<string, number>();
  const refunds = new Map<string, SimulatedWechatRefund>();
  const paid: WechatPaySimulator['paid'] = [];
  const faults: WechatFault[] = [];
  const downloads = new Map<string, Buffer>();
  let signing: WechatSigningMode = 'publicKey';
  let transferMode: WechatTransferMode = 'success';
  let transferFailReason = 'NAME_NOT_CORRECT';
  let refundStatus: WechatRefundStatus = 'SUCCESS';
  let ready = true;
  const notifications = merchantNotifications();
  let baseUrl = '';

  /** The WeChat Pay private keys by the serial that names them. */
  const wechatPrivateKeys: Record<string, KeyObject> = { [publicKeyId]: wechatKey.privateKey, [platformSerial]: platform.privateKey };

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
    const serial = signing === 'publicKey' ? publicKeyId : platformSerial;
    return {
      'Wechatpay-Timestamp': timestamp,
      'Wechatpay-Nonce': nonce,
      'Wechatpay-Signature': createSign('RSA-SHA256').update(`${timestamp}\n${nonce}\n${body}\n`).sign(wechatPrivateKeys[serial]!, 'base64'),
      'Wechatpay-Serial': serial,
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

  function billOf(t: SimulatedWechatTransfer) {
    return {
      mch_id: mchId,
      out_bill_no: t.out_bill_no,
      transfer_bill_no: t.transfer_bill_no,
      appid: appId,
      state: t.state,
      transfer_amount: t.transfer_amount,
      transfer_remark: '账户提现',
      openid: t.openid,
      create_time: t.create_time,
      update_time: t.update_time,
      ...(t.fail_reason ? { fail_reason: t.fail_reason } : {}),
      ...(t.state === 'WAIT_USER_CONFIRM' && t.package_info ? { package_info: t.package_info } : {}),
    };
  }

  function refundOf(r: SimulatedWechatRefund) {
    const order = orders.get(r.out_trade_no)!;
    return {
      refund_id: r.refund_id,
      out_refund_no: r.out_refund_no,
      transaction_id: order.transaction_id,
      out_trade_no: r.out_trade_no,
      channel: 'ORIGINAL',
      user_received_account: '支付用户零钱',
      create_time: r.create_time,
      status: r.status,
      funds_account: 'AVAILABLE',
      amount: { total: r.total, refund: r.refund, payer_total: r.total, payer_refund: r.refund, settlement_total: r.total, settlement_refund: r.refund, discount_refund: 0, currency: 'CNY' },
      ...(r.success_time ? { success_time: r.success_time } : {}),
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

  /** The awkward answer queued for this money-moving request, answered here when nothing is to be made. */
  function faultBefore(res: ServerResponse): WechatFault | 'answered' | null {
    const fault = faults.shift() ?? null;
    if (fault === 'SYSTEM_ERROR') answer(res, 500, { code: 'SYSTEM_ERROR', message: '系统错误' });
    else if (fault === 'NOT_ENOUGH') answer(res, 403, { code: 'NOT_ENOUGH', message: '资金不足' });
    else if (fault === 'PARAM_ERROR') answer(res, 400, { code: 'PARAM_ERROR', message: '参数错误' });
    else return fault;
    return 'answered';
  }

  /** Made, but answered awkwardly: the connection dropped, no answer at all, or refused as a number already used. */
  function faultAfter(res: ServerResponse, fault: WechatFault | null): boolean {
    if (fault === 'lost') {
      res.socket?.destroy();
      return true;
    }
    // left open until the client gives up or the simulator stops
    if (fault === 'stall') return true;
    if (fault === 'duplicate') {
      answer(res, 400, { code: 'INVALID_REQUEST', message: '商户单号重复' });
      return true;
    }
    return false;
  }

  function moneyLeft(kind: 'transfer' | 'refund', no: string, amount: number) {
    paid.push({ kind, no, amount });
  }

  /** 商家转账: one bill per out_bill_no; the payee name, when sent, must be encrypted for the WeChat Pay key named by Wechatpay-Serial. */
  function transferBill(res: ServerResponse, req: IncomingMessage, input: any) {
    const no = String(input.out_bill_no ?? '');
    transferRequests.set(no, (transferRequests.get(no) ?? 0) + 1);
    const fault = faultBefore(res);
    if (fault === 'answered') return;
    const known = transfers.get(no);
    if (known) {
      if (known.openid !== input.openid || known.transfer_amount !== input.transfer_amount) return answer(res, 400, { code: 'INVALID_REQUEST', message: '商户单号重复' });
      if (faultAfter(res, fault)) return;
      return answer(res, 200, billOf(known));
    }
    const infos = input.transfer_scene_report_infos;
    if (
      input.appid !== appId ||
      !/^[0-9A-Za-z]{5,32}$/.test(no) ||
      typeof input.transfer_scene_id !== 'string' ||
      typeof input.user_recv_perception !== 'string' ||
      !Array.isArray(infos) ||
      infos.length === 0 ||
      typeof input.openid !== 'string' ||
      !Number.isInteger(input.transfer_amount) ||
      input.transfer_amount < 10 ||
      (input.transfer_amount >= 200_000 && !input.user_name)
    ) {
      return answer(res, 400, { code: 'PARAM_ERROR', message: '参数错误' });
    }
    let userName: string | null = null;
    if (input.user_name) {
      const key = wechatPrivateKeys[String(req.headers['wechatpay-serial'] ?? '')];
      if (!key) return answer(res, 400, { code: 'PARAM_ERROR', message: '微信支付公钥ID或平台证书序列号错误' });
      try {
        userName = privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, Buffer.from(input.user_name, 'base64')).toString('utf8');
      } catch {
        return answer(res, 400, { code: 'PARAM_ERROR', message: '姓名解密失败' });
      }
    }
    const now = wechatTime();
    const t: SimulatedWechatTransfer = {
      out_bill_no: no,
      transfer_bill_no: `1330000${randomBytes(12).toString('hex')}`,
      openid: input.openid,
      user_name: userName,
      transfer_amount: input.transfer_amount,
      transfer_scene_id: input.transfer_scene_id,
      user_recv_perception: input.user_recv_perception,
      transfer_scene_report_infos: infos,
      notify_url: input.notify_url ?? null,
      state: transferMode === 'success' ? 'SUCCESS' : transferMode === 'fail' ? 'FAIL' : 'WAIT_USER_CONFIRM',
      fail_reason: transferMode === 'fail' ? transferFailReason : null,
      package_info: transferMode === 'confirm' ? `ABBQO+oYAAABAAAAAAAk+yPZGzAAAADsAtXO${randomBytes(12).toString('base64')}` : null,
      create_time: now,
      update_time: now,
    };
    transfers.set(no, t);
    if (t.state === 'SUCCESS') moneyLeft('transfer', no, t.transfer_amount);
    if (faultAfter(res, fault)) return;
    // the creation answer says it was accepted; the query tells how it ended
    return answer(res, 200, { out_bill_no: no, transfer_bill_no: t.transfer_bill_no, create_time: now, state: t.state === 'WAIT_USER_CONFIRM' ? t.state : 'ACCEPTED', ...(t.package_info ? { package_info: t.package_info } : {}) });
  }

  function refund(res: ServerResponse, input: any) {
    const fault = faultBefore(res);
    if (fault === 'answered') return;
    const no = String(input.out_refund_no ?? '');
    const order = orders.get(String(input.out_trade_no ?? ''));
    if (!order || order.trade_state !== 'SUCCESS') return answer(res, 404, { code: 'RESOURCE_NOT_EXISTS', message: '订单不存在' });
    const known = refunds.get(no);
    if (known) {
      if (known.refund !== input.amount?.refund || known.out_trade_no !== order.out_trade_no) return answer(res, 400, { code: 'INVALID_REQUEST', message: '商户退款单号重复' });
      if (faultAfter(res, fault)) return;
      return answer(res, 200, refundOf(known));
    }
    const refunded = [...refunds.values()].filter((r) => r.out_trade_no === order.out_trade_no && r.status !== 'CLOSED').reduce((sum, r) => sum + r.refund, 0);
    if (!/^[0-9A-Za-z_\-|*@]{1,64}$/.test(no) || !Number.isInteger(input.amount?.refund) || input.amount.refund < 1 || input.amount?.currency !== 'CNY') {
      return answer(res, 400, { code: 'PARAM_ERROR', message: '参数错误' });
    }
    if (input.amount.total !== order.total || refunded + input.amount.refund > order.total) return answer(res, 400, { code: 'INVALID_REQUEST', message: '订单金额或退款金额与之前请求不一致' });
    const now = wechatTime();
    const r: SimulatedWechatRefund = {
      out_refund_no: no,
      refund_id: `50300${randomBytes(12).toString('hex')}`,
      out_trade_no: order.out_trade_no,
      refund: input.amount.refund,
      total: order.total,
      status: refundStatus,
      notify_url: input.notify_url ?? null,
      create_time: now,
      success_time: refundStatus === 'SUCCESS' ? now : null,
    };
    refunds.set(no, r);
    if (r.status === 'SUCCESS' || r.status === 'ABNORMAL') moneyLeft('refund', no, r.refund);
    if (faultAfter(res, fault)) return;
    return answer(res, 200, { ...refundOf(r), status: r.status === 'SUCCESS' ? 'PROCESSING' : r.status });
  }

  /** A day's bill offered for download, as WeChat Pay answers the apply request. */
  function offerBill(res: ServerResponse, rows: string[][], csv: () => Buffer) {
    if (!ready) return answer(res, 400, { code: 'STATEMENT_CREATING', message: '账单生成中' });
    if (rows.length === 0) return answer(res, 400, { code: 'NO_STATEMENT_EXIST', message: '账单不存在' });
    const file = csv();
    const token = randomBytes(16).toString('hex');
    downloads.set(token, file);
    return answer(res, 200, { hash_type: 'SHA1', hash_value: createHash('sha1').update(file).digest('hex'), download_url: `${baseUrl}/v3/billdownload/file?token=${token}` });
  }

  function tradeBill(res: ServerResponse, day: string) {
    const rows: string[][] = [];
    for (const o of orders.values()) {
      if (o.trade_state !== 'SUCCESS' || !o.success_time?.startsWith(day)) continue;
      rows.push([billTime(o.success_time), appId, mchId, '0', '', o.transaction_id, o.out_trade_no, 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', 'NATIVE', 'SUCCESS', 'OTHERS', 'CNY',
        yuan(o.total, 2), '0.00', '0', '0', '0.00', '0.00', '', '', o.description, '', yuan(o.total * 6, 5), '0.60%', yuan(o.total, 2), '0.00', '']);
    }
    for (const r of refunds.values()) {
      if (r.status !== 'SUCCESS' || !r.success_time?.startsWith(day)) continue;
      const o = orders.get(r.out_trade_no)!;
      rows.push([billTime(r.success_time), appId, mchId, '0', '', o.transaction_id, o.out_trade_no, 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', 'NATIVE', 'REFUND', 'OTHERS', 'CNY',
        '0.00', '0.00', r.refund_id, r.out_refund_no, yuan(r.refund, 2), '0.00', 'ORIGINAL', 'SUCCESS', o.description, '', yuan(-r.refund * 6, 5), '0.60%', '0.00', yuan(r.refund, 2), '']);
    }
    return offerBill(res, rows, () =>
      billCsv(TRADE_BILL_HEADERS, rows, ['总交易单数', '应结订单总金额', '退款总金额', '充值券退款总金额', '手续费总金额', '订单总金额', '申请退款总金额'], [String(rows.length), '0.00', '0.00', '0.00', '0.00', '0.00', '0.00']),
    );
  }

  function fundFlowBill(res: ServerResponse, day: string) {
    const rows: string[][] = [];
    for (const t of transfers.values()) {
      if (t.state !== 'SUCCESS' || !t.update_time.startsWith(day)) continue;
      rows.push([billTime(t.update_time), t.transfer_bill_no, `5000${randomBytes(10).toString('hex')}`, '商家转账', '商家转账', '支出', yuan(t.transfer_amount, 2), '0.00', mchId, '账户提现', t.out_bill_no]);
    }
    return offerBill(res, rows, () =>
      billCsv(FUND_FLOW_HEADERS, rows, ['资金流水总笔数', '收入笔数', '收入金额', '支出笔数', '支出金额'], [String(rows.length), '0', '0.00', String(rows.length), '0.00']),
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const body = (await readBody(req)).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://simulator');
    if (!authorized(req, body)) {
      refusedRequests.push(`${req.method} ${url.pathname}`);
      return answer(res, 401, { code: 'SIGN_ERROR', message: '签名错误' });
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
    if (req.method === 'POST' && url.pathname === '/v3/fund-app/mch-transfer/transfer-bills') return transferBill(res, req, JSON.parse(body));
    const bill = /^\/v3\/fund-app\/mch-transfer\/transfer-bills\/out-bill-no\/([^/]+)(\/cancel)?$/.exec(url.pathname);
    if (bill) {
      const no = decodeURIComponent(bill[1]!);
      if (!bill[2]) transferQueries.set(no, (transferQueries.get(no) ?? 0) + 1);
      const t = transfers.get(no);
      if (!t) return answer(res, 404, { code: 'NOT_FOUND', message: '记录不存在' });
      if (req.method === 'GET' && !bill[2]) return answer(res, 200, billOf(t));
      if (req.method === 'POST' && bill[2]) {
        if (t.state !== 'ACCEPTED' && t.state !== 'WAIT_USER_CONFIRM') return answer(res, 400, { code: 'INVALID_REQUEST', message: '当前状态不支持撤销' });
        t.state = 'CANCELLED';
        t.update_time = wechatTime();
        return answer(res, 200, { out_bill_no: t.out_bill_no, transfer_bill_no: t.transfer_bill_no, state: 'CANCELING', update_time: t.update_time });
      }
    }
    if (req.method === 'POST' && url.pathname === '/v3/refund/domestic/refunds') return refund(res, JSON.parse(body));
    const refundQuery = /^\/v3\/refund\/domestic\/refunds\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && refundQuery) {
      const r = refunds.get(decodeURIComponent(refundQuery[1]!));
      if (!r) return answer(res, 404, { code: 'RESOURCE_NOT_EXISTS', message: '退款单不存在' });
      return answer(res, 200, refundOf(r));
    }
    if (req.method === 'GET' && url.pathname === '/v3/bill/tradebill') return tradeBill(res, url.searchParams.get('bill_date') ?? '');
    if (req.method === 'GET' && url.pathname === '/v3/bill/fundflowbill') return fundFlowBill(res, url.searchParams.get('bill_date') ?? '');
    if (req.method === 'GET' && url.pathname === '/v3/billdownload/file') {
      const file = downloads.get(url.searchParams.get('token') ?? '');
      if (!file) return answer(res, 404, { code: 'NOT_FOUND', message: '下载链接已过期' });
      // downloads are not signed: the hash in the signed apply answer vouches for them
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
      return;
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
  baseUrl = `http://127.0.0.1:${port}`;

  function signedCallback(eventType: string, summary: string, originalType: string, resource: unknown) {
    const body = JSON.stringify({
      id: randomBytes(16).toString('hex'),
      create_time: wechatTime(),
      resource_type: 'encrypt-resource',
      event_type: eventType,
      summary,
      resource: { original_type: originalType, ...encrypt(JSON.stringify(resource), originalType) },
    });
    return { headers: signedHeaders(body), body };
  }

  function callbackFor(outTradeNo: string, transaction: Record<string, unknown> = {}) {
    const order = recordOf(orders, 'order', outTradeNo);
    return signedCallback('TRANSACTION.SUCCESS', '支付成功', 'transaction', { ...transactionOf(order), ...transaction });
  }

  function transferCallbackFor(outBillNo: string, fields: Record<string, unknown> = {}) {
    const t = recordOf(transfers, 'transfer', outBillNo);
    return signedCallback('MCHTRANSFER.BILL.FINISHED', '商家转账单据终态通知', 'mch_payment', { ...billOf(t), ...fields });
  }

  function refundCallbackFor(outRefundNo: string) {
    const r = recordOf(refunds, 'refund', outRefundNo);
    const o = orders.get(r.out_trade_no)!;
    return signedCallback(`REFUND.${r.status}`, '退款状态', 'refund', {
      mchid: mchId,
      out_trade_no: r.out_trade_no,
      transaction_id: o.transaction_id,
      out_refund_no: r.out_refund_no,
      refund_id: r.refund_id,
      refund_status: r.status,
      ...(r.success_time ? { success_time: r.success_time } : {}),
      user_received_account: '支付用户零钱',
      amount: { total: r.total, refund: r.refund, payer_total: r.total, payer_refund: r.refund },
    });
  }

  function sendCallback(notifyUrl: string, callback: { headers: Record<string, string>; body: string }) {
    return notifications.deliver(notifyUrl, { headers: { 'content-type': 'application/json', ...callback.headers }, body: callback.body });
  }

  return {
    baseUrl,
    appId,
    mchId,
    merchantPrivateKey: merchant.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    merchantCertificate,
    merchantSerial,
    apiV3Key,
    publicKey: wechatKey.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicKeyId,
    platformCertificate,
    platformSerial,
    orders,
    refusedRequests,
    transfers,
    transferRequests,
    transferQueries,
    refunds,
    paid,
    signWith(mode) {
      signing = mode;
    },
    setTransferMode(mode, failReason) {
      transferMode = mode;
      if (failReason) transferFailReason = failReason;
    },
    setRefundStatus(status) {
      refundStatus = status;
    },
    queueFaults(...more) {
      faults.push(...more);
    },
    async confirmTransfer(outBillNo) {
      const t = transfers.get(outBillNo);
      if (!t || t.state !== 'WAIT_USER_CONFIRM') throw new Error(`transfer ${outBillNo} is not waiting for its payee`);
      t.state = 'SUCCESS';
      t.update_time = wechatTime();
      moneyLeft('transfer', outBillNo, t.transfer_amount);
      return t.notify_url ? sendCallback(t.notify_url, transferCallbackFor(outBillNo)) : null;
    },
    async finishRefund(outRefundNo, status) {
      const r = refunds.get(outRefundNo);
      if (!r || r.status !== 'PROCESSING') throw new Error(`refund ${outRefundNo} is not processing`);
      r.status = status;
      if (status === 'SUCCESS') r.success_time = wechatTime();
      if (status !== 'CLOSED') moneyLeft('refund', outRefundNo, r.refund);
      return r.notify_url ? sendCallback(r.notify_url, refundCallbackFor(outRefundNo)) : null;
    },
    routeNotificationsTo: notifications.routeTo,
    async pay(outTradeNo, opts = {}) {
      const order = recordIn(orders, 'order', outTradeNo, (o) => o.trade_state, 'NOTPAY');
      order.trade_state = 'SUCCESS';
      order.success_time = wechatTime();
      if (opts.deliver === false) return null;
      return sendCallback(order.notify_url, callbackFor(outTradeNo));
    },
    callbackFor,
    transferCallbackFor,
    refundCallbackFor,
    sendCallback,
    billsReady(value) {
      ready = value;
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
