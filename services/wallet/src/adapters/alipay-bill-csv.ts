import { unzipSync } from 'fflate';
import type { BillLine } from '../application/ports';
import { idOfMerchantNo } from '../domain/wechat-merchant-no';
import { billYuanToFen } from '../domain/yuan';

/** A bill's time, `YYYY-MM-DD HH:mm:ss` in China time. */
const chinaTime = (cell: string | undefined) => new Date(`${(cell ?? '').trim().replace(' ', 'T')}+08:00`);

/** Our id in a merchant number: the uuid we sent, or its 32 hex digits; null for a number not ours. */
function ourId(cell: string | undefined): string | null {
  const no = (cell ?? '').trim().toLowerCase();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(no)) return no;
  return idOfMerchantNo(no);
}

/**
 * One CSV of an Alipay bill, decoded from GBK: comment lines start with `#` (title, account, dates,
 * the list's start and end, the totals), the first other line is the header, the rest are rows.
 * Cells are written unquoted and padded with tabs and spaces, which are trimmed.
 */
function rowsOf(bytes: Uint8Array): { header: string[]; rows: Array<Record<string, string>> } {
  const lines = new TextDecoder('gbk').decode(bytes).split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const [head, ...body] = lines;
  const header = (head ?? '').split(',').map((c) => c.trim());
  const rows = body.map((line) => {
    const cells = line.split(',').map((c) => c.trim());
    return Object.fromEntries(header.map((name, i) => [name, cells[i] ?? '']));
  });
  return { header, rows };
}

/**
 * The trade bill's detail list (业务明细): a 交易 row per payment (商户订单号, our payment id) and a
 * 退款 row per refund (退款批次号/请求号, our refund id), each with Alipay's 服务费. A refund row
 * carries the payment's 订单金额; what it returned is its 商家实收, negative. Rows whose number is
 * not ours are left out.
 */
function tradeLines(rows: Array<Record<string, string>>): BillLine[] {
  const lines: BillLine[] = [];
  for (const row of rows) {
    const fee = Math.abs(billYuanToFen(row['服务费（元）']) ?? 0);
    const providerId = row['支付宝交易号'] || null;
    const occurredAt = chinaTime(row['完成时间']);
    if (row['业务类型'] === '交易') {
      const reference = ourId(row['商户订单号']);
      const amount = billYuanToFen(row['订单金额（元）']);
      if (reference && amount) lines.push({ kind: 'payment', reference, providerId, amount, fee, occurredAt });
    } else if (row['业务类型'] === '退款') {
      const reference = ourId(row['退款批次号/请求号']);
      const amount = Math.abs(billYuanToFen(row['商家实收（元）']) ?? 0);
      if (reference && amount) lines.push({ kind: 'refund', reference, providerId, amount, fee, occurredAt });
    }
  }
  return lines;
}

/**
 * The account-flow bill (账务明细, `signcustomer`): the transfers paid out (业务类型 转账, an
 * expense, 商户订单号 = the out_biz_no, our withdrawal id). Its payment, refund and fee rows repeat
 * the trade bill's and are left to it.
 */
function transferLines(rows: Array<Record<string, string>>): BillLine[] {
  const lines: BillLine[] = [];
  for (const row of rows) {
    if (!(row['业务类型'] ?? '').includes('转账')) continue;
    const reference = ourId(row['商户订单号']);
    const amount = Math.abs(billYuanToFen(row['支出金额（-元）']) ?? 0);
    if (reference && amount) lines.push({ kind: 'transfer', reference, providerId: row['业务流水号'] || null, amount, fee: 0, occurredAt: chinaTime(row['发生时间']) });
  }
  return lines;
}

/**
 * The lines of one bill zip. Each CSV is told by its header, not its file name: the detail list
 * has 支付宝交易号 and 商户订单号, the account flow 账务流水号; summaries (汇总) have neither.
 */
export function alipayBillLines(zip: Uint8Array): BillLine[] {
  const lines: BillLine[] = [];
  for (const [name, bytes] of Object.entries(unzipSync(zip))) {
    if (!name.toLowerCase().endsWith('.csv')) continue;
    const { header, rows } = rowsOf(bytes);
    if (header.includes('账务流水号')) lines.push(...transferLines(rows));
    else if (header.includes('支付宝交易号') && header.includes('商户订单号')) lines.push(...tradeLines(rows));
  }
  return lines;
}
