import { idOfMerchantNo } from '../domain/wechat-merchant-no';
import { findWithdrawal, makeDueNow } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import type { WechatPayNotifications } from './ports';
import type { WechatAck, WechatCallbackHeaders } from './receive-wechatpay-notification';
import { sendWithdrawal } from './send-withdrawal';

/**
 * A WeChat Pay callback's resource, once its signature (by the key its serial names, within the
 * clock window) holds and it opens with the API v3 key; the reason otherwise.
 */
async function openCallback(notifications: WechatPayNotifications, headers: WechatCallbackHeaders, raw: Buffer): Promise<Record<string, unknown> | string> {
  const body = raw.toString('utf8');
  if (!(await notifications.verify(headers, body))) return 'signature';
  let envelope: { resource?: { ciphertext?: string; associated_data?: string; nonce?: string } };
  try {
    envelope = JSON.parse(body);
  } catch {
    return 'malformed body';
  }
  return notifications.openResource(envelope.resource) ?? 'resource not decryptable';
}

function refuse(deps: WalletDeps, what: string, reason: string, id: string | null): WechatAck {
  deps.log.warn({ provider: 'wechatpay', callback: what, reason, id }, 'WeChat Pay callback refused');
  return 'refused';
}

/**
 * WeChat Pay's merchant-transfer callback. It decides nothing: a genuine callback about one of our
 * withdrawals makes it due and looks at it now, which asks WeChat Pay by the number and applies that
 * answer, so a forged, replayed or stale callback can at most cause one more question.
 */
export async function receiveWechatPayTransferCallback(deps: WalletDeps, headers: WechatCallbackHeaders, raw: Buffer): Promise<WechatAck> {
  if (!deps.wechatpay) return 'refused';
  const bill = await openCallback(deps.wechatpay, headers, raw);
  if (typeof bill === 'string') return refuse(deps, 'transfer', bill, null);
  const id = idOfMerchantNo(bill.out_bill_no);
  if (bill.mch_id !== deps.wechatpay.mchId) return refuse(deps, 'transfer', 'mch_id', id);
  const withdrawal = id ? await findWithdrawal(deps.db, id) : null;
  if (!withdrawal || withdrawal.channel !== 'wechatpay') return refuse(deps, 'transfer', 'unknown out_bill_no', id);
  if (await makeDueNow(deps.db, withdrawal.id, new Date())) await sendWithdrawal(deps, withdrawal.id);
  return 'ok';
}

/**
 * WeChat Pay's refund callback: checked the same way and acknowledged; what the refund became is
 * what WeChat Pay answers when the refund is asked about by its number, never this callback.
 */
export async function receiveWechatPayRefundCallback(deps: WalletDeps, headers: WechatCallbackHeaders, raw: Buffer): Promise<WechatAck> {
  if (!deps.wechatpay) return 'refused';
  const refund = await openCallback(deps.wechatpay, headers, raw);
  if (typeof refund === 'string') return refuse(deps, 'refund', refund, null);
  const id = idOfMerchantNo(refund.out_refund_no);
  if (refund.mchid !== deps.wechatpay.mchId) return refuse(deps, 'refund', 'mchid', id);
  if (!id) return refuse(deps, 'refund', 'unknown out_refund_no', null);
  deps.log.info({ provider: 'wechatpay', refund_id: id, refund_status: refund.refund_status }, 'WeChat Pay refund callback received');
  return 'ok';
}
