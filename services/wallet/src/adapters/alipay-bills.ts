import type { BillLine, BillSource } from '../application/ports';
import { ProviderFailed } from '../domain/errors';
import { alipayBillLines } from './alipay-bill-csv';
import type { AlipayClient } from './alipay-gateway';

/** Alipay's answer while a day's bill does not exist (yet): bills of a day are made the next morning. */
const NOT_READY = new Set(['isv.bill_not_exist', 'BILL_NOT_EXIST']);

/**
 * Alipay's daily bills: the trade bill (`trade`: payments and refunds with their fees) and the
 * account flow (`signcustomer`: transfers). Each is asked for with a signed, verified
 * `alipay.data.dataservice.bill.downloadurl.query`, whose `bill_download_url` is a short-lived
 * link to a zip of GBK CSVs; the link comes from the verified answer, which is what vouches for it.
 */
export class AlipayBills implements BillSource {
  readonly provider = 'alipay';

  constructor(
    private readonly client: AlipayClient,
    private readonly timeoutMs: number,
  ) {}

  async dailyBill(day: string): Promise<BillLine[] | null> {
    const trade = await this.download('trade', day);
    if (trade === null) return null;
    const flow = await this.download('signcustomer', day);
    if (flow === null) return null;
    return [...alipayBillLines(trade), ...alipayBillLines(flow)];
  }

  /** The bill zip's bytes; null while Alipay has no bill for the day. */
  private async download(billType: 'trade' | 'signcustomer', day: string): Promise<Uint8Array | null> {
    const what = `hand over the ${billType} bill`;
    const answer = await this.client.call('alipay.data.dataservice.bill.downloadurl.query', { bizContent: { bill_type: billType, bill_date: day } });
    if (answer?.code === '40004' && NOT_READY.has(String(answer.sub_code))) return null;
    const url = answer?.code === '10000' ? answer.bill_download_url : undefined;
    if (typeof url !== 'string') throw new ProviderFailed('Alipay', what);
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch {
      throw new ProviderFailed('Alipay', what);
    }
    if (!res.ok) throw new ProviderFailed('Alipay', what);
    return new Uint8Array(await res.arrayBuffer());
  }
}
