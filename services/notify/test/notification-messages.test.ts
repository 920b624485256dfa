import { eventConsumers } from '@market/contracts';
import { notificationsFor, yuan } from '../src/domain/notification-messages';

describe('amounts in notifications', () => {
  it('show integer fen as yuan with two decimals, exactly', () => {
    expect(yuan(0)).toBe('¥0.00');
    expect(yuan(5)).toBe('¥0.05');
    expect(yuan(10)).toBe('¥0.10');
    expect(yuan(1999)).toBe('¥19.99');
    // 0.29 * 100 is 28.999999999999996 in floating point: the figure must not go through one
    expect(yuan(29)).toBe('¥0.29');
    expect(yuan(123_456_789)).toBe('¥1234567.89');
    expect(yuan(1_000_000_000)).toBe('¥10000000.00');
  });
});

describe('the message table', () => {
  it('says nothing for an event type notify does not tell anyone about', () => {
    expect(eventConsumers.notify).not.toContain('listing.updated');
    expect(
      notificationsFor('listing.updated', {
        listing_id: 'l',
        owner_id: 'o',
        title: 't',
        game: 'g',
        hourly_price: 1,
        deposit: 0,
        min_hours: 1,
        max_hours: null,
        status: 'draft',
        review_status: 'none',
        updated_at: new Date().toISOString(),
      }),
    ).toEqual([]);
  });
});
