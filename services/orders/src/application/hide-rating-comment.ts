import type { AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { auditRefusal, recordAudit } from '@market/shared/events';
import { InvalidState, NotFound } from '@market/shared/errors';
import { hideComment, lockRating } from '../persistence/rating-repository';
import { existingOrder } from './admin-read-orders';
import type { OrdersDeps } from './deps';
import { toRatingView } from './rating-view';

const HIDE_AUDIT = 'order.rating.hide_comment';

/**
 * The back office hides an abusive comment (ADR 0066): kept for its author and staff, hidden from
 * everyone else; the stars still count, so nothing is published again. Audited, a refusal too.
 */
export async function hideRatingComment(deps: OrdersDeps, identity: AdminIdentity, id: string, ratingId: string, reason: string) {
  const order = await existingOrder(deps, id);
  const audit = { action: HIDE_AUDIT, biz_type: 'order', biz_id: order.id };
  const outcome = await deps.db.transaction(async (tx) => {
    const rating = isUuid(ratingId) ? await lockRating(tx, order.id, ratingId) : null;
    if (!rating) return new NotFound('rating not found');
    if (rating.comment === null) return new InvalidState('the rating has no comment');
    if (rating.comment_hidden_at !== null) return new InvalidState('the comment is hidden already');
    const hidden = await hideComment(tx, rating.id, identity.sub, reason, new Date());
    await recordAudit(deps.events, tx, identity, { ...audit, detail: { rating_id: rating.id, rater_id: rating.rater_id, reason } });
    return hidden;
  });
  if (outcome instanceof Error) {
    await auditRefusal(deps.db, deps.events, identity, { ...audit, detail: { rating_id: ratingId, reason, code: outcome.code } });
    throw outcome;
  }
  return toRatingView(outcome, { kind: 'staff' });
}
