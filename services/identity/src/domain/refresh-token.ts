/** What a presented refresh token is worth, decided from its stored row alone. */
export type RefreshVerdict = 'unknown' | 'revoked' | 'reused' | 'expired' | 'valid';

export interface StoredRefreshToken {
  expires_at: Date;
  rotated_at: Date | null;
  session_revoked_at: Date | null;
}

export function judgeRefreshToken(token: StoredRefreshToken | undefined, now: Date): RefreshVerdict {
  if (!token) return 'unknown';
  if (token.session_revoked_at) return 'revoked';
  // A rotated token presented again means two holders: the family is no longer trustworthy.
  if (token.rotated_at) return 'reused';
  if (token.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'valid';
}
