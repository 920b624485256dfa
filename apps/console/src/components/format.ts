import dayjs from 'dayjs';

/** Integer fen as yuan with two decimals. */
export const yuan = (fen: number | null | undefined) => (fen == null ? '—' : `¥${(fen / 100).toFixed(2)}`);
export const when = (iso: string | null | undefined) => (iso ? dayjs(iso).format('YYYY-MM-DD HH:mm:ss') : '—');
