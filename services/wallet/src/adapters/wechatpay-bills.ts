import { createHash } from 'node:crypto';
import type { BillLine, BillSource } from '../application/ports';
import { ProviderFailed } from '../domain/errors';
import { fundFlowBillLines, tradeBillLines } from './wechatpay-bill-csv';
import type { WechatPayClient } from './wechatpay-client';

/** WeChat Pay's answers for a day with no bill: none made (no business that day) or not made yet (bills come from 10:00 the next day). */
const NO_BILL = new Set(['NO_STATEMENT_EXIST', 'STATEMENT_CREATING']);

/**
 * WeChat Pay's daily bills: the trade bill and the basic account's fund-flow bill. Each is applied
 * for (a signed GET answering `download_url` and the file's SHA1), downloaded by a signed GET to
 * the configured host (downloads are not signed by WeChat Pay: the hash from the verified answer
 * is what vouches for the file) and read into bill lines.
 */
export class WechatPayBills implements BillSource {
  readonly provider = 'wechatpay';

  constructor(private readonly client: WechatPayClient) {}

  async dailyBill(day: string): Promise<BillLine[] | null> {
    const trade = await this.download('trade', 'v3/bill/tradebill', { bill_date: day, bill_type: 'ALL' });
    const fundFlow = await this.download('fund-flow', 'v3/bill/fundflowbill', { bill_date: day });
    if (trade === 'not yet' || fundFlow === 'not yet') return null;
    if (trade === null && fundFlow === null) return null;
    return [...(trade ? tradeBillLines(trade) : []), ...(fundFlow ? fundFlowBillLines(fundFlow) : [])];
  }

  /** The bill's bytes; null when WeChat Pay has none for the day, `not yet` while it is being made. */
  private async download(kind: string, applyPath: string, params: Record<string, string>): Promise<Buffer | null | 'not yet'> {
    const what = `hand over the ${kind} bill`;
    const applied = await this.client.request(what, 'get', applyPath, { params });
    if (applied.status === 400 && NO_BILL.has(applied.data?.code)) return applied.data.code === 'STATEMENT_CREATING' ? 'not yet' : null;
    const { download_url: url, hash_type: hashType, hash_value: hash } = applied.data ?? {};
    if (applied.status !== 200 || typeof url !== 'string' || hashType !== 'SHA1' || typeof hash !== 'string') throw new ProviderFailed('WeChat Pay', what);
    const target = new URL(url);
    // only ever to the configured WeChat Pay host, whatever host the answer names
    const file = await this.client.request(what, 'get', target.pathname.slice(1), { params: Object.fromEntries(target.searchParams), raw: true });
    const bytes = Buffer.from(file.data ?? []);
    if (file.status !== 200 || createHash('sha1').update(bytes).digest('hex') !== hash.toLowerCase()) throw new ProviderFailed('WeChat Pay', what);
    return bytes;
  }
}
