/**
 * Webhook subscriptions (src/data/webhook-store.ts): one table partition per
 * business (ids sort by creation), and the active ones also in one sparse
 * partition of the `list-keys` index sorted by their next attempt, which is how
 * the dispatcher finds the due ones without a Scan.
 */
import { keys, type Key } from '../keys';
import { attributesOf, keyNames, pattern, placeAt } from './entity';

const ACTIVE_PARTITION = 'webhook-subscriptions#active';

const ofBusiness = pattern<{ readonly businessId: string }>('table', 'subscription id', ({ businessId }) =>
  keys.webhookSubscriptions(businessId),
);
const due = pattern<Record<string, never>>('list-keys', 'next_attempt_at (epoch ms)', () => ACTIVE_PARTITION);

export const webhookSubscription = {
  entity: 'webhook subscription',
  key: (businessId: string, id: string): Key => keys.webhookSubscription(businessId, id),
  patterns: { ofBusiness, due },
  /** The attributes that keep an active subscription in `due` at its next attempt. */
  dueAt: (nextAttemptAt: number): Record<string, string | number> => placeAt(due, {}, nextAttemptAt),
  /** The attributes to remove when it stops being active. */
  dueAttributes: attributesOf(due),
  /** Key condition of the due ones at `now`: partition and sort key at most `now`. */
  dueQuery: (now: number) => {
    const { pk, sk } = keyNames(due.index);
    return {
      IndexName: due.index,
      KeyConditionExpression: '#pk = :p AND #sk <= :now',
      ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
      ExpressionAttributeValues: { ':p': due.partition({}), ':now': now },
    };
  },
} as const;
