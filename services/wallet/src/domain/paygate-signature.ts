import { createHmac, timingSafeEqual } from 'node:crypto';

/** docs/rules.md §5: `Paygate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signPaygateBody(secret: string, raw: Buffer | string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(raw).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * Why a signature header does not vouch for these bytes now, or null when it does. Several `v1`
 * values are accepted (a gateway rotating its secret sends both); the comparison is constant-time.
 */
export function paygateSignatureError(secret: string, header: string | undefined, raw: Buffer, nowSeconds: number): string | null {
  if (!header) return 'missing Paygate-Signature';
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v!);
  if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) return 'malformed Paygate-Signature';
  if (Math.abs(nowSeconds - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) return 'Paygate-Signature timestamp outside the tolerance';
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex'), 'utf8');
  const matches = signatures.some((s) => {
    const given = Buffer.from(s, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? null : 'Paygate-Signature does not match the body';
}
