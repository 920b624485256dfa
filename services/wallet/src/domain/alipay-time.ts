/** Alipay writes times as `yyyy-MM-dd HH:mm:ss` in China Standard Time (UTC+8, no daylight saving). */
const CST_MS = 8 * 3_600_000;

export function toAlipayTime(at: Date): string {
  const t = new Date(at.getTime() + CST_MS).toISOString();
  return `${t.slice(0, 10)} ${t.slice(11, 19)}`;
}

export function fromAlipayTime(text: string | undefined): Date | null {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(text ?? '');
  return match ? new Date(`${match[1]}T${match[2]}+08:00`) : null;
}
