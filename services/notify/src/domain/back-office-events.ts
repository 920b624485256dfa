import type { EventData, EventType } from '@market/contracts';
import { BACK_OFFICE, type NotificationDraft } from './notification-messages';

type ListingEvent = 'listing.submitted' | 'listing.approved' | 'listing.rejected' | 'listing.deleted' | 'listing.marked_abnormal';

/** A listing waits for review while it is a draft under review (what the dashboard counts). */
const underReview = (l: EventData<ListingEvent>) => l.status === 'draft' && l.review_status === 'pending';

/** A listing that was under review and is no longer: deleted or marked abnormal keep `review_status` pending. */
const leftReview = (l: EventData<ListingEvent>) => l.review_status === 'pending' && !underReview(l);

function listingDraft(type: ListingEvent, l: EventData<ListingEvent>, title: string): NotificationDraft[] {
  return [{ user_id: BACK_OFFICE, kind: type, title, body: `「${l.title}」`, data: { listing_id: l.listing_id, review_status: l.review_status }, biz_type: 'listing', biz_id: l.listing_id }];
}

function disputeDraft(type: 'dispute.opened' | 'dispute.resolved', d: EventData<'dispute.opened' | 'dispute.resolved'>, title: string, body: string): NotificationDraft[] {
  return [{ user_id: BACK_OFFICE, kind: type, title, body, data: { dispute_id: d.dispute_id, order_id: d.order_id }, biz_type: 'order', biz_id: d.order_id }];
}

/**
 * What the back office's own stream carries besides its alerts: a listing entering or leaving the
 * review queue, a dispute opened or resolved. They tell the console that a queue changed (its
 * header badges read the sizes again), not the size itself: an owner's edit takes a listing out of
 * review with nothing to say it was under review before (`listing.updated`), so no count could be
 * kept from the events alone. Listing moves that never touch the queue say nothing.
 */
const QUEUE_EVENTS: { [T in EventType]?: (data: EventData<T>) => NotificationDraft[] } = {
  'listing.submitted': (l) => (underReview(l) ? listingDraft('listing.submitted', l, '新房源待审核') : []),
  'listing.approved': (l) => listingDraft('listing.approved', l, '房源已通过审核'),
  'listing.rejected': (l) => listingDraft('listing.rejected', l, '房源已驳回'),
  'listing.deleted': (l) => (leftReview(l) ? listingDraft('listing.deleted', l, '待审核房源已被删除') : []),
  'listing.marked_abnormal': (l) => (leftReview(l) ? listingDraft('listing.marked_abnormal', l, '待审核房源已标记异常') : []),
  'dispute.opened': (d) => disputeDraft('dispute.opened', d, '新纠纷待处理', d.reason),
  'dispute.resolved': (d) => disputeDraft('dispute.resolved', d, '纠纷已处理', d.note),
};

/** The back office's notifications of an event: queue changes (alerts are in the message table). */
export function backOfficeNotificationsFor<T extends EventType>(type: T, data: EventData<T>): NotificationDraft[] {
  const build = QUEUE_EVENTS[type] as ((data: EventData<T>) => NotificationDraft[]) | undefined;
  return build ? build(data) : [];
}

/** The kinds a back-office list of operator alerts shows: the queue changes are for the live stream. */
export const ALERT_KINDS: readonly EventType[] = ['ops.alert'];
