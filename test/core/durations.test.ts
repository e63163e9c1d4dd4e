/** `parseDuration` and `formatDuration`: the durations of `amsflow approval request`. Pure. */
import { DurationFormatError, formatDuration, parseDuration } from '../../core/durations';

describe('parseDuration', () => {
  it.each([
    ['1500ms', 1500],
    ['0ms', 0],
    ['0s', 0],
    ['15s', 15_000],
    ['10m', 600_000],
    ['90m', 5_400_000],
    ['2h', 7_200_000],
    ['3d', 259_200_000],
    ['010m', 600_000],
    ['365d', 31_536_000_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', /"" is not a duration/],
    ['10', /add a unit, e\.g\. "10s"/],
    ['m', /not a duration/],
    ['1.5h', /whole number and one unit/],
    ['-5m', /not a duration/],
    ['+5m', /not a duration/],
    [' 5m', /not a duration/],
    ['5m ', /not a duration/],
    ['5 m', /not a duration/],
    ['5M', /not a duration/],
    ['5min', /not a duration/],
    ['5w', /not a duration/],
    ['1e3ms', /not a duration/],
    ['1h30m', /use a single unit, e\.g\. "90m"/],
    ['0x10s', /not a duration/],
  ])('rejects %j', (text, message) => {
    let caught: unknown;
    try {
      parseDuration(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DurationFormatError);
    expect((caught as DurationFormatError).code).toBe('AMSFLOW_INVALID_DURATION');
    expect((caught as DurationFormatError).input).toBe(text);
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).toContain('e.g.');
  });

  it('rejects a duration past the safe integers', () => {
    expect(() => parseDuration('99999999999999999999d')).toThrow(
      '"99999999999999999999d" is too long a duration',
    );
  });

  it('names the units it accepts', () => {
    expect(() => parseDuration('soon')).toThrow(
      '"soon" is not a duration; write a whole number and one unit: ms, s, m, h or d',
    );
  });

  it('shortens a long input in the message', () => {
    expect(() => parseDuration('x'.repeat(500))).toThrow(`"${'x'.repeat(40)}…" is not a duration`);
  });

  it('rejects what is not text', () => {
    expect(() => parseDuration(600 as unknown as string)).toThrow(DurationFormatError);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [1500, '1500ms'],
    [15_000, '15s'],
    [90_000, '90s'],
    [600_000, '10m'],
    [5_400_000, '90m'],
    [7_200_000, '2h'],
    [259_200_000, '3d'],
  ])('%d ms is %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });

  it('rejects negative and fractional ms', () => {
    expect(() => formatDuration(-1)).toThrow(RangeError);
    expect(() => formatDuration(1.5)).toThrow(RangeError);
  });
});
