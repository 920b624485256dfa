/**
 * Our ids are uuids; WeChat Pay's merchant numbers (`out_trade_no`, `out_refund_no`, `out_bill_no`)
 * allow 32 letters and digits: the id's 32 hex digits, read back the same way.
 */
export const toMerchantNo = (id: string) => id.replace(/-/g, '');

/** The uuid behind a merchant number we made, or null for one we did not. */
export function idOfMerchantNo(no: unknown): string | null {
  const m = typeof no === 'string' ? /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(no) : null;
  return m ? m.slice(1).join('-') : null;
}
