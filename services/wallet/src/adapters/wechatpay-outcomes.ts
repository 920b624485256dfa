import type { WechatAnswer } from './wechatpay-client';

type NotFound = { outcome: 'not_found' };
type Unknown = { outcome: 'unknown'; detail: string };

const isNotFound = (found: { outcome: string }): found is NotFound => found.outcome === 'not_found';

/** WeChat Pay's answer; null when none came (a timeout, a dropped connection, an answer that failed verification). */
async function answerOf(ask: () => Promise<WechatAnswer>): Promise<WechatAnswer | null> {
  try {
    return await ask();
  } catch {
    return null;
  }
}

/**
 * What a request sending money out under our number (a transfer, a refund) left: on 200, the
 * outcome `read` makes of the answer. A 4xx refusal on the request's `finalRefusals` is `failed`
 * only once `query` by the number finds nothing, because WeChat Pay refuses a number that exists
 * with other details the same way; what the query found otherwise. Anything else (no answer, 5xx,
 * another code) is unknown, and asked about until final.
 */
export async function sentOutcome<Outcome extends { outcome: string }>(
  ask: () => Promise<WechatAnswer>,
  read: (data: Record<string, any>) => Outcome,
  finalRefusals: ReadonlySet<string>,
  query: () => Promise<Outcome | NotFound>,
): Promise<Outcome | { outcome: 'failed'; reason: string } | Unknown> {
  const out = await answerOf(ask);
  if (!out) return { outcome: 'unknown', detail: 'no answer' };
  if (out.status === 200) return read(out.data ?? {});
  const code = String(out.data?.code ?? out.status);
  if (out.status >= 400 && out.status < 500 && finalRefusals.has(code)) {
    const found = await query();
    return isNotFound(found) ? { outcome: 'failed', reason: code } : found;
  }
  return { outcome: 'unknown', detail: code };
}

/**
 * What WeChat Pay says when asked about our number: on 200, the outcome `read` makes of the answer;
 * a 404 with `notFoundCode` is `not_found` (it never received the request); anything else unknown.
 */
export async function queriedOutcome<Outcome extends { outcome: string }>(
  ask: () => Promise<WechatAnswer>,
  read: (data: Record<string, any>) => Outcome,
  notFoundCode: string,
): Promise<Outcome | NotFound | Unknown> {
  const out = await answerOf(ask);
  if (!out) return { outcome: 'unknown', detail: 'no answer' };
  if (out.status === 404 && out.data?.code === notFoundCode) return { outcome: 'not_found' };
  if (out.status !== 200) return { outcome: 'unknown', detail: String(out.data?.code ?? out.status) };
  return read(out.data ?? {});
}
