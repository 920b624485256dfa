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
 * A callback (`what`) about one of our numbers, opened as `openCallback` does and checked to be for
 * our merchant: its resource and our id from the number at `fields.no` (null when the number is not
 * one of ours); otherwise the refusal, logged. WeChat Pay names the merchant `mch_id` in a transfer
 * bill and `mchid` in a refund (`fields.mch`).
 */
async function ourCallback(
  deps: WalletDeps,
  what: 'transfer' | 'refund',
  fields: { no: string; mch: string },
  headers: WechatCallbackHeaders,
  raw: Buffer,
): Promise<{ resource: Record<string, unknown>; id: string | null } | WechatAck> {
  if (!deps.wechatpay) return 'refused';
  const resource = await openCallback(deps.wechatpay, headers, raw);
  if (typeof resource === 'string') return refuse(deps, what, resource, null);
  const id = idOfMerchantNo(resource[fields.no]);
  if (resource[fields.mch] !== deps.wechatpay.mchId) return refuse(deps, what, fields.mch, id);
  return { resource, id };
}

/**
 * WeChat Pay's merchant-transfer callback. It decides nothing: a genuine callback about one of our
 * withdrawals makes it due and looks at it now, which asks WeChat Pay by the number and applies that
 * answer, so a forged, replayed or stale callback can at most cause one more question.
 */
export async function receiveWechatPayTransferCallback(deps: WalletDeps, headers: WechatCallbackHeaders, raw: Buffer): Promise<WechatAck> {
  const bill = await ourCallback(deps, 'transfer', { no: 'out_bill_no', mch: 'mch_id' }, headers, raw);
  if (typeof bill === 'string') return bill;
  const withdrawal = bill.id ? await findWithdrawal(deps.db, bill.id) : null;
  if (!withdrawal || withdrawal.channel !== 'wechatpay') return refuse(deps, 'transfer', 'unknown out_bill_no', bill.id);
  if (await makeDueNow(deps.db, withdrawal.id, new Date())) await sendWithdrawal(deps, withdrawal.id);
  return 'ok';
}

/**
 * WeChat Pay's refund callback: checked the same way and acknowledged; what the refund became is
 * what WeChat Pay answers when the refund is asked about by its number, never this callback.
 */
export async function receiveWechatPayRefundCallback(deps: WalletDeps, headers: WechatCallbackHeaders, raw: Buffer): Promise<WechatAck> {
  const refund = await ourCallback(deps, 'refund', { no: 'out_refund_no', mch: 'mchid' }, headers, raw);
  if (typeof refund === 'string') return refund;
  if (!refund.id) return refuse(deps, 'refund', 'unknown out_refund_no', null);
  deps.log.info({ provider: 'wechatpay', refund_id: refund.id, refund_status: refund.resource.refund_status }, 'WeChat Pay refund callback received');
  return 'ok';
}
