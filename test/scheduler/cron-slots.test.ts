import cron from 'node-cron';
import { describe, expect, it } from 'vitest';
import {
  cronMatcher,
  floorToMinute,
  shouldForceRefresh,
  slotAtOrBefore,
  slotIndexInDay,
  slotsBetween,
} from '../../src/scheduler/cron-slots.ts';

const t = (iso: string) => new Date(iso);

describe('cron slots (UTC, fake clock)', () => {
  const quarter = cronMatcher('*/15 * * * *');

  it("leaves nothing in node-cron's task registry, however often a matcher is asked for", () => {
    const before = cron.getTasks().size;
    for (let i = 0; i < 1_000; i++) expect(cronMatcher('7,37 * * * *').matches(t('2026-10-01T00:37:00Z'))).toBe(true);
    expect(cronMatcher('7,37 * * * *').matches(t('2026-10-01T00:38:00Z'))).toBe(false);
    expect(cron.getTasks().size).toBe(before);
  });

  it('lists the slots after one time up to another, oldest first', () => {
    const slots = slotsBetween(quarter, t('2026-01-01T00:00:00Z'), t('2026-01-01T01:07:30Z'), 100);
    expect(slots.map((s) => s.toISOString())).toEqual([
      '2026-01-01T00:15:00.000Z',
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T00:45:00.000Z',
      '2026-01-01T01:00:00.000Z',
    ]);
  });

  it('keeps only the newest slots when more are missed than the limit', () => {
    const minute = cronMatcher('* * * * *');
    const slots = slotsBetween(minute, t('2026-01-01T00:00:00Z'), t('2026-01-01T10:00:00Z'), 3);
    expect(slots.map((s) => s.toISOString())).toEqual([
      '2026-01-01T09:58:00.000Z',
      '2026-01-01T09:59:00.000Z',
      '2026-01-01T10:00:00.000Z',
    ]);
  });

  it('finds the slot a time belongs to', () => {
    expect(slotAtOrBefore(quarter, t('2026-03-01T10:29:59Z'))?.toISOString()).toBe('2026-03-01T10:15:00.000Z');
    expect(slotAtOrBefore(cronMatcher('0 * * * *'), t('2026-03-01T10:00:00Z'))?.toISOString()).toBe(
      '2026-03-01T10:00:00.000Z',
    );
    expect(floorToMinute(t('2026-03-01T10:29:59.999Z')).toISOString()).toBe('2026-03-01T10:29:00.000Z');
  });

  it('evaluates in UTC whatever the machine time zone', () => {
    const daily = cronMatcher('30 3 * * *');
    expect(daily.matches(t('2026-06-01T03:30:00Z'))).toBe(true);
    expect(daily.matches(t('2026-06-01T04:30:00Z'))).toBe(false);
  });

  it('forces a refresh on every Nth slot of the day, starting with the first', () => {
    expect(slotIndexInDay(quarter, t('2026-01-01T00:00:00Z'))).toBe(0);
    expect(slotIndexInDay(quarter, t('2026-01-01T01:00:00Z'))).toBe(4);
    const forced = slotsBetween(quarter, t('2025-12-31T23:59:00Z'), t('2026-01-01T01:59:00Z'), 100).filter((slot) =>
      shouldForceRefresh(quarter, slot, 4),
    );
    expect(forced.map((s) => s.toISOString())).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z']);
    expect(shouldForceRefresh(quarter, t('2026-01-01T00:00:00Z'), 0)).toBe(false);
  });
});
