import { Formatter } from 'wechatpay-axios-plugin';
import type { BillLine } from '../application/ports';
import { idOfMerchantNo } from '../domain/wechat-merchant-no';
import { billYuanToFen } from '../domain/yuan';

/** A bill's time, `YYYY-MM-DD HH:mm:ss` in China time. */
const chinaTime = (cell: string | undefined) => new Date(`${(cell ?? '').trim().replace(' ', 'T')}+08:00`);

/**
 * WeChat Pay's CSV layout: a byte-order mark, a header line, one line per record whose every cell
 * starts with a backtick (so spreadsheets keep long numbers as text), then a summary caption and
 * line. The kit's `Formatter.castCsvBill` reads it into rows keyed by the Chinese headers.
 */
function rowsOf(csv: Buffer): Array<Record<string, string>> {
  const text = csv.toString('utf8');
  if (text.trim() === '') return [];
  return (Formatter.castCsvBill(csv) as { rows: Array<Record<string, string>> }).rows;
}

/**
 * The trade bill (`bill_type=ALL`): a paid line per payment (`商户订单号`, our payment id) and a
 * refund line per refund (`商户退款单号`, our refund id), each with WeChat Pay's fee. Lines whose
 * number is not ours (another system on the same merchant) are left out.
 */
export function tradeBillLines(csv: Buffer): BillLine[] {
  const lines: BillLine[] = [];
  for (const row of rowsOf(csv)) {
    const fee = Math.abs(billYuanToFen(row['手续费']) ?? 0);
    const occurredAt = chinaTime(row['交易时间']);
    if (row['交易状态'] === 'SUCCESS') {
      const reference = idOfMerchantNo(row['商户订单号']);
      const amount = billYuanToFen(row['订单金额']);
      if (reference && amount !== null) lines.push({ kind: 'payment', reference, providerId: row['微信订单号'] || null, amount, fee, occurredAt });
    } else if (row['交易状态'] === 'REFUND') {
      const reference = idOfMerchantNo(row['商户退款单号']);
      const amount = billYuanToFen(row['申请退款金额']) || billYuanToFen(row['退款金额']);
      if (reference && amount) lines.push({ kind: 'refund', reference, providerId: row['微信退款单号'] || null, amount, fee, occurredAt });
    }
  }
  return lines;
}

/** The fund-flow business types under which a merchant transfer leaves the balance. */
const TRANSFER_TYPES = new Set(['商家转账', '企业付款']);

/**
 * The fund-flow bill (basic account): the merchant transfers paid out (`业务凭证号`, our withdrawal
 * id). Its payment, refund and fee lines repeat the trade bill's and are left to it.
 */
export function fundFlowBillLines(csv: Buffer): BillLine[] {
  const lines: BillLine[] = [];
  for (const row of rowsOf(csv)) {
    if (!TRANSFER_TYPES.has(row['业务类型'] ?? '') || row['收支类型'] !== '支出') continue;
    const reference = idOfMerchantNo(row['业务凭证号']);
    const amount = billYuanToFen(row['收支金额(元)']);
    if (reference && amount) lines.push({ kind: 'transfer', reference, providerId: row['微信支付业务单号'] || null, amount, fee: 0, occurredAt: chinaTime(row['记账时间']) });
  }
  return lines;
}
