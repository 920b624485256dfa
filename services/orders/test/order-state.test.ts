import { OrderStatus } from '@market/contracts';
import { isActive, type OrderState } from '../src/domain/order-state';
import { SYSTEM_CONFIG_DEFAULTS as DEFAULT_SETTINGS } from '@market/contracts';
import { deadlineOf, statesTimedBy } from '../src/domain/timeouts';

const STATES = OrderStatus.options as OrderState[];

describe('order states', () => {
  it('count only unfinished ones as active', () => {
    expect(STATES.filter(isActive).sort()).toEqual(
      ['pending_payment', 'pending_handoff', 'pending_receive', 'in_use', 'pending_checkout_confirm', 'pending_correction_confirm', 'disputed', 'abnormal'].sort(),
    );
    expect(STATES.filter((s) => !isActive(s)).sort()).toEqual(['cancelled', 'closed', 'completed']);
  });
});

describe('deadlines', () => {
  const entered = new Date('2026-11-22T10:00:00.000Z');

  it('count from entering the state, or from the end of the rental while in use', () => {
    expect(deadlineOf({ status: 'pending_payment', status_changed_at: entered, ends_at: null }, DEFAULT_SETTINGS, 60_000)?.toISOString()).toBe(
      '2026-11-22T10:15:00.000Z',
    );
    const endsAt = new Date('2026-11-22T13:00:00.000Z');
    expect(deadlineOf({ status: 'in_use', status_changed_at: entered, ends_at: endsAt }, DEFAULT_SETTINGS, 60_000)?.toISOString()).toBe(
      '2026-11-22T13:30:00.000Z',
    );
    // disputed and abnormal (ADR 0029): hours; the first deadline alerts, the second (twice) resolves
    expect(deadlineOf({ status: 'disputed', status_changed_at: entered, ends_at: endsAt }, DEFAULT_SETTINGS, 60_000)?.toISOString()).toBe(
      '2026-11-25T10:00:00.000Z',
    );
    expect(
      deadlineOf({ status: 'abnormal', status_changed_at: entered, ends_at: null, overdue_alerted_at: entered }, DEFAULT_SETTINGS, 60_000)?.toISOString(),
    ).toBe('2026-12-06T10:00:00.000Z');
    expect(deadlineOf({ status: 'completed', status_changed_at: entered, ends_at: endsAt }, DEFAULT_SETTINGS, 60_000)).toBeNull();
  });

  it('follow the configured threshold and the length of a minute', () => {
    const settings = { ...DEFAULT_SETTINGS, 'order.receive_timeout_minutes': 2 };
    expect(deadlineOf({ status: 'pending_receive', status_changed_at: entered, ends_at: null }, settings, 1000)?.toISOString()).toBe(
      '2026-11-22T10:00:02.000Z',
    );
    expect(statesTimedBy('order.receive_timeout_minutes')).toEqual(['pending_receive']);
    expect(statesTimedBy('platform.commission_rate_bps')).toEqual([]);
  });
});
