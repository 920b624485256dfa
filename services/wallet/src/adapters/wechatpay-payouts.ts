import type { PayoutChannel, PayoutOutcome } from '../application/ports';
import type { Output, WechatPayClient } from './wechatpay-gateway';

/** WeChat Pay's batch and detail numbers allow letters and digits only: the withdrawal uuid's 32 hex digits. */
const batchNo = (withdrawalId: string) => withdrawalId.replace(/-/g, '');

/** Refusals that are final; anything else (rate limits, system errors, no answer) leaves the outcome unknown. */
const FINAL_REFUSALS = new Set([400, 403, 404]);

/**
 * WeChat Pay merchant transfers to a user's balance (商家转账到零钱, `/v3/transfer/batches`) through
 * the SDK's `batches_transfer`: one batch of one detail, both numbered by the withdrawal id, which
 * WeChat Pay accepts once. `payee_account` is the payee's openid under our app; the payee name goes
 * RSA-OAEP encrypted with the platform key (the SDK's `publicEncrypt`) so WeChat Pay checks it. An
 * accepted batch is paid asynchronously: its outcome is asked with `query_batches_transfer_detail`.
 */
export class WechatPayPayouts implements PayoutChannel {
  readonly channel = 'wechatpay';

  constructor(private readonly client: WechatPayClient) {}

  async send(t: { withdrawalId: string; amount: number; payeeAccount: string; payeeName: string }) {
    let out: Output;
    try {
      const platform = await this.client.platformPublicKey();
      out = await this.client.call('send the transfer', () =>
        this.client.sdk.batches_transfer({
          out_batch_no: batchNo(t.withdrawalId),
          batch_name: '账户提现',
          batch_remark: '账户提现',
          total_amount: t.amount,
          total_num: 1,
          transfer_detail_list: [
            {
              out_detail_no: batchNo(t.withdrawalId),
              transfer_amount: t.amount,
              transfer_remark: '账户提现',
              openid: t.payeeAccount,
              user_name: this.client.sdk.publicEncrypt(t.payeeName, platform.publicKey),
            },
          ],
          wx_serial_no: platform.serial,
        }),
      );
    } catch {
      return { outcome: 'unknown' as const };
    }
    if (out.status === 200) return { outcome: 'unknown' as const };
    if (FINAL_REFUSALS.has(out.status)) return { outcome: 'failed' as const, reason: String(out.error?.code ?? out.status) };
    return { outcome: 'unknown' as const };
  }

  async query(withdrawalId: string): Promise<PayoutOutcome> {
    let out: Output;
    try {
      out = await this.client.call('say how the transfer stands', () =>
        this.client.sdk.query_batches_transfer_detail({ out_batch_no: batchNo(withdrawalId), out_detail_no: batchNo(withdrawalId) }),
      );
    } catch {
      return { outcome: 'unknown' };
    }
    if (out.status === 404) return { outcome: 'not_found' };
    if (out.status !== 200) return { outcome: 'unknown' };
    if (out.data?.detail_status === 'SUCCESS') {
      return { outcome: 'paid', providerOrderId: out.data.detail_id ?? null, paidAt: out.data.update_time ? new Date(out.data.update_time) : new Date() };
    }
    if (out.data?.detail_status === 'FAIL') return { outcome: 'failed', reason: String(out.data.fail_reason ?? 'FAIL') };
    return { outcome: 'unknown' };
  }
}
