/**
 * Providers bill by the day in Asia/Shanghai, which keeps UTC+8 all year (no daylight saving), so
 * a day's bounds are fixed offsets from UTC midnight.
 */
const OFFSET_MS = 8 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether `day` is a real calendar day written `YYYY-MM-DD`. */
export function isDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const at = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day;
}

/** The instants a Shanghai day starts and ends (exclusive). */
export function shanghaiDayBounds(day: string): { start: Date; end: Date } {
  const start = new Date(Date.parse(`${day}T00:00:00Z`) - OFFSET_MS);
  return { start, end: new Date(start.getTime() + DAY_MS) };
}

/** The Shanghai day `at` falls in. */
export function shanghaiDayOf(at: Date): string {
  return new Date(at.getTime() + OFFSET_MS).toISOString().slice(0, 10);
}

/** The Shanghai day before the one `at` falls in. */
export function shanghaiYesterday(at: Date): string {
  return shanghaiDayOf(new Date(at.getTime() - DAY_MS));
}

/** Minutes since Shanghai midnight at `at`. */
export function shanghaiMinutesOf(at: Date): number {
  const local = new Date(at.getTime() + OFFSET_MS);
  return local.getUTCHours() * 60 + local.getUTCMinutes();
}
