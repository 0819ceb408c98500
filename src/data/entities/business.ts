/**
 * A business (src/data/business-store.ts): its config item (what every request
 * reads with its first BatchGetItem; only import writes it) and its entry in
 * the registry partition, which import writes with the config so the retention
 * job finds businesses with one Query instead of a Scan. The item mappings of both.
 */
import type { BusinessConfig } from '../../domain/business';
import { retentionDaysOf } from '../../domain/retention';
import { BUSINESS_REGISTRY, keys, type Key } from '../dynamo/keys';
import { pattern } from './entity';

/** A registered business and its retention setting (undefined = applications are kept). */
export interface RegisteredBusiness {
  readonly businessId: string;
  readonly retentionDays: number | undefined;
  /** Its IANA timezone (the effective-date run's days); undefined for an entry written before it was kept. */
  readonly timezone: string | undefined;
  /** The last day (YYYY-MM-DD) whose effective-date changes are all written; undefined before the first run. */
  readonly effectiveThrough: string | undefined;
}

/** The registry attribute the effective-date run moves (src/data/business-store.ts markEffectiveThrough). */
const EFFECTIVE_THROUGH = 'effective_through';

/**
 * The config of an authenticated business. Tokens are issued only after an
 * import wrote the config (it is written last), so a missing one is a broken
 * invariant on our side, never the client's fault: 500, the same everywhere.
 */
export function requireConfig(config: BusinessConfig | undefined, businessId: string): BusinessConfig {
  if (!config) throw new Error(`business config missing for ${businessId}`);
  return config;
}

const registry = pattern<Record<string, never>>('table', 'business id', () => BUSINESS_REGISTRY);

export const business = {
  entity: 'business',
  configKey: (businessId: string): Key => keys.business(businessId),
  registryKey: (businessId: string): Key => keys.businessRegistry(businessId),
  patterns: { registry },
  /** The config item (`created_at` kept from the first import). */
  configItem: (config: BusinessConfig, createdAt: unknown, updatedAt: string): Record<string, unknown> => ({
    ...keys.business(config.id),
    config,
    created_at: createdAt,
    updated_at: updatedAt,
  }),
  configOf: (item: Readonly<Record<string, unknown>> | undefined): BusinessConfig | undefined =>
    item?.config as BusinessConfig | undefined,
  /**
   * The registry entry of a business: its retention setting, so the job skips businesses without one for free,
   * and its timezone; the effective-date run's progress of the entry `stored` is kept.
   */
  registryEntry: (config: BusinessConfig, stored?: Readonly<Record<string, unknown>>): Record<string, unknown> => {
    const days = retentionDaysOf(config.application_retention_days);
    const through = stored?.[EFFECTIVE_THROUGH];
    return {
      ...keys.businessRegistry(config.id),
      business_id: config.id,
      timezone: config.timezone,
      ...(days !== undefined ? { application_retention_days: days } : {}),
      ...(typeof through === 'string' ? { [EFFECTIVE_THROUGH]: through } : {}),
    };
  },
  effectiveThroughAttribute: EFFECTIVE_THROUGH,
  registeredOf: (item: Readonly<Record<string, unknown>>): RegisteredBusiness => ({
    businessId: String(item.business_id),
    retentionDays: retentionDaysOf(item.application_retention_days),
    timezone: typeof item.timezone === 'string' ? item.timezone : undefined,
    effectiveThrough: typeof item[EFFECTIVE_THROUGH] === 'string' ? (item[EFFECTIVE_THROUGH] as string) : undefined,
  }),
} as const;
