/**
 * Payment providers write money as yuan with two decimals ("88.80"); the ledger keeps integer fen.
 * Both directions are exact string work, never floating point.
 */
export function fenToYuan(fen: number): string {
  if (!Number.isSafeInteger(fen) || fen < 0) throw new Error(`not an amount in fen: ${fen}`);
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}

/** The fen of a yuan amount, or null when the text is not one. */
export function yuanToFen(yuan: string | undefined): number | null {
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(yuan ?? '');
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/**
 * Money in a provider's daily bill: yuan with up to five decimals (WeChat Pay writes fees to 0.00001
 * yuan), an optional sign; rounded half up to the fen, as the providers settle it. Null when the cell
 * is not one.
 */
export function billYuanToFen(cell: string | undefined): number | null {
  const match = /^-?(\d{1,12})(?:\.(\d{1,5}))?$/.exec(cell?.trim() ?? '');
  if (!match) return null;
  const hundredThousandths = Number(match[1]) * 100_000 + Number((match[2] ?? '').padEnd(5, '0'));
  return Math.floor((hundredThousandths + 500) / 1000);
}
