import type { CustomFieldDefinition } from './custom-fields';

export const LOCALES = ['de', 'it', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

export interface BusinessProfile {
  readonly id: string;
  readonly name: string;
  /** Non-empty, in order; the first is the preferred language. */
  readonly locales: Locale[];
  readonly timezone: string;
  /** Contract §17: applications not written for longer are erased by the retention job; absent/null = kept. */
  readonly application_retention_days?: number | null;
  /** Contract §18: the default limit of the business's tokens (600 per 60 s when absent). */
  readonly token_rate_limit?: StoredRatePolicy;
  /** Contract §18: the limit over all the business's tokens together (3000 per 60 s when absent). */
  readonly rate_limit?: StoredRatePolicy;
}

/** A rate limit as fixtures, token items and counter items store it (src/domain/rate-window.ts RatePolicy). */
export interface StoredRatePolicy {
  readonly requests: number;
  readonly window_seconds: number;
}

/**
 * Everything a request of this business needs besides the record itself, kept
 * in one item so a handler reads it in the same BatchGetItem as the record.
 */
export interface BusinessConfig extends BusinessProfile {
  readonly employee_status_ids: string[];
  readonly default_employee_status_id: string | null;
  readonly application_status_ids: string[];
  readonly default_application_status_id: string | null;
  readonly department_ids: string[];
  readonly job_opening_ids: string[];
  readonly location_ids: string[];
  readonly employee_fields: CustomFieldDefinition[];
  readonly employee_job_fields: CustomFieldDefinition[];
  readonly application_fields: CustomFieldDefinition[];
  /** Set on a sandbox (contract §24): the business it copies, and how many times it was refilled. */
  readonly sandbox?: SandboxOf;
}

export interface SandboxOf {
  readonly of: string;
  /** 1 when made, +1 per reset: the external ids of its generated records carry it (src/services/sandbox.ts). */
  readonly generation: number;
}

export const preferredLanguage = (business: BusinessProfile): Locale => business.locales[0] ?? 'en';

/** `{prefix}_{locale}` for each locale of the business, null where unset (contract §1). */
export function localized(
  prefixes: readonly string[],
  locales: readonly Locale[],
  source: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of prefixes)
    for (const locale of locales) out[`${prefix}_${locale}`] = source[`${prefix}_${locale}`] ?? null;
  return out;
}
