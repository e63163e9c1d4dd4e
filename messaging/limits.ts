/**
 * Per-endpoint request budgets (spec section 8). Member names match the simulator's `limits`
 * option so one object can configure both.
 */

/** Rolling-window budgets, per endpoint, per agent. */
export interface Limits {
  /** Window length in ms. Default 60000. */
  windowMs: number;
  /** POST /messages per window. Default 12. */
  messages: number;
  /** POST /statuses (mark read) per window. Default 12. */
  statuses: number;
  /** POST /statuses with a typing indicator per window: its own counter. Default 12. */
  typing: number;
  /** GET /updates per window. Default 15. */
  updates: number;
  /** POST /media per window. Default 12. */
  mediaUpload: number;
  /** GET /media/<id> per window. Default 12. */
  mediaGet: number;
  /** DELETE /media/<id> per window. Default 12. */
  mediaDelete: number;
}

/** The paced endpoints (every budget of {@link Limits} except the window length). */
export type PacedEndpoint = Exclude<keyof Limits, 'windowMs'>;

export const PACED_ENDPOINTS: readonly PacedEndpoint[] = [
  'messages',
  'statuses',
  'typing',
  'updates',
  'mediaUpload',
  'mediaGet',
  'mediaDelete',
];

/**
 * Spec section 8. The spec gives typing no number of its own, only its own counter; it gets the
 * POST /statuses budget.
 */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  windowMs: 60_000,
  messages: 12,
  statuses: 12,
  typing: 12,
  updates: 15,
  mediaUpload: 12,
  mediaGet: 12,
  mediaDelete: 12,
});

/** Defaults overlaid with `overrides`; throws a RangeError for a non-positive budget. */
export function resolveLimits(overrides: Partial<Limits> = {}): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    const ok =
      key === 'windowMs' ? Number.isFinite(value) && value >= 0 : Number.isInteger(value) && value >= 1;
    if (!ok)
      throw new RangeError(
        `limits.${key} must be ${key === 'windowMs' ? 'a non-negative number' : 'a positive integer'}, got ${String(value)}`,
      );
    limits[key] = value;
  }
  return limits;
}
