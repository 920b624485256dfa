import type { PayoutChannel, PayoutOutcome } from '../application/ports';
import { ProviderFailed } from '../domain/errors';
import { toMerchantNo } from '../domain/wechat-merchant-no';
import type { WechatPayClient } from './wechatpay-client';
import { queriedOutcome, sentOutcome } from './wechatpay-outcomes';

/** What WeChat Pay asks a merchant transfer to say about itself, from the merchant's 商家转账 product settings. */
export interface WechatTransferSettings {
  /** the transfer scene granted to the merchant, e.g. `1005` (佣金报酬) */
  sceneId: string;
  /** what the payee sees the money as (`user_recv_perception`), one allowed for the scene */
  perception: string;
  /** the scene's report fields (`transfer_scene_report_infos`), as the scene requires them */
  reportInfos: Array<{ info_type: string; info_content: string }>;
  /** public URL of `POST /api/payments/wechatpay/transfer-notify`; without one the outcome is found by asking */
  notifyUrl: string | null;
}

/** From this amount (2,000 yuan) WeChat Pay requires the payee's real name, which it then checks. */
export const USER_NAME_REQUIRED_FROM_FEN = 200_000;

/**
 * Refusals of a transfer that are final: the request as built can never pass, so nothing was
 * created. PARAM_ERROR: a field fails WeChat Pay's rules (an openid of another format, a scene's
 * report field missing). INVALID_REQUEST: the request is well-formed but not allowed — an openid not
 * of this appid, a perception the scene does not allow, the merchant's daily transfer limit.
 * NO_AUTH: the merchant has no 商家转账 product for this scene. Because "the number exists with other
 * details" also answers INVALID_REQUEST, a refusal is taken as final only once a query by the
 * number finds no transfer. Everything else is unknown and asked about until final: 403 NOT_ENOUGH
 * (the merchant tops up; the same number is sent again), SYSTEM_ERROR, FREQUENCY_LIMITED, 5xx,
 * timeouts, and answers that fail verification.
 */
export const TRANSFER_FINAL_REFUSALS: ReadonlySet<string> = new Set(['PARAM_ERROR', 'INVALID_REQUEST', 'NO_AUTH']);

/** A transfer bill (`/v3/fund-app/mch-transfer/transfer-bills/…`) as its state says. */
function outcomeOf(bill: { state?: string; transfer_bill_no?: string; package_info?: string; fail_reason?: string; update_time?: string }): Exclude<PayoutOutcome, { outcome: 'not_found' }> {
  switch (bill.state) {
    case 'SUCCESS':
      return { outcome: 'paid', providerOrderId: bill.transfer_bill_no ?? null, paidAt: bill.update_time ? new Date(bill.update_time) : new Date() };
    case 'FAIL':
      return { outcome: 'failed', reason: bill.fail_reason ?? 'FAIL' };
    // cancelled before the payee confirmed: no money moved
    case 'CANCELLED':
      return { outcome: 'failed', reason: 'CANCELLED' };
    case 'WAIT_USER_CONFIRM':
      return typeof bill.package_info === 'string'
        ? { outcome: 'awaiting_payee', confirmation: bill.package_info, providerOrderId: bill.transfer_bill_no ?? null }
        : { outcome: 'unknown', detail: 'WAIT_USER_CONFIRM' };
    default:
      // ACCEPTED, PROCESSING, TRANSFERING, CANCELING and anything new
      return { outcome: 'unknown', detail: bill.state };
  }
}

/**
 * WeChat Pay merchant transfers (商家转账, `/v3/fund-app/mch-transfer/transfer-bills`), numbered
 * `out_bill_no` = the withdrawal id's hex digits, which WeChat Pay accepts once: a resend reuses the
 * number and the same payee. The payee is the openid under our app; from 2,000 yuan the payee's name
 * travels RSA-OAEP encrypted for the WeChat Pay key named in `Wechatpay-Serial`. Only a refusal on
 * `TRANSFER_FINAL_REFUSALS` that a query confirms left nothing behind is `failed`.
 */
export class WechatPayPayouts implements PayoutChannel {
  readonly channel = 'wechatpay';

  constructor(
    private readonly client: WechatPayClient,
    private readonly settings: WechatTransferSettings,
  ) {}

  async send(t: { withdrawalId: string; amount: number; payeeAccount: string; payeeName: string }): Promise<Exclude<PayoutOutcome, { outcome: 'not_found' }>> {
    const name = t.amount >= USER_NAME_REQUIRED_FROM_FEN ? this.client.encryptSensitive(t.payeeName) : null;
    const body = {
      appid: this.client.config.appId,
      out_bill_no: toMerchantNo(t.withdrawalId),
      transfer_scene_id: this.settings.sceneId,
      openid: t.payeeAccount,
      ...(name ? { user_name: name.ciphertext } : {}),
      transfer_amount: t.amount,
      transfer_remark: '账户提现',
      ...(this.settings.notifyUrl ? { notify_url: this.settings.notifyUrl } : {}),
      user_recv_perception: this.settings.perception,
      transfer_scene_report_infos: this.settings.reportInfos,
    };
    const ask = () => this.client.request('send the transfer', 'post', 'v3/fund-app/mch-transfer/transfer-bills', { body, ...(name ? { serial: name.serial } : {}) });
    return sentOutcome(ask, outcomeOf, TRANSFER_FINAL_REFUSALS, () => this.query(t.withdrawalId));
  }

  async query(withdrawalId: string): Promise<PayoutOutcome> {
    const ask = () => this.client.request('say how the transfer stands', 'get', `v3/fund-app/mch-transfer/transfer-bills/out-bill-no/${toMerchantNo(withdrawalId)}`);
    return queriedOutcome(ask, outcomeOf, 'NOT_FOUND');
  }

  /** Withdraws a transfer the payee has not confirmed; it ends CANCELLED (failed) or, if confirmed meanwhile, SUCCESS, as the next query says. */
  async cancel(withdrawalId: string): Promise<void> {
    const out = await this.client.request('cancel the transfer', 'post', `v3/fund-app/mch-transfer/transfer-bills/out-bill-no/${toMerchantNo(withdrawalId)}/cancel`);
    if (out.status !== 200 && !(out.status === 400 && out.data?.code === 'INVALID_REQUEST')) {
      throw new ProviderFailed('WeChat Pay', 'cancel the transfer');
    }
  }
}
