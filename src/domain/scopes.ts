/**
 * API token scopes (contract §15). Import-free, so the route table, the admin
 * tool, the OpenAPI builder and the CDK app can all read it.
 *
 * A write scope does not imply the read scope: GET routes need `:read`, POST,
 * PUT and DELETE only `:write` (and still answer with the record).
 */
export const SCOPES = [
  'employees:read',
  'employees:write',
  'applications:read',
  'applications:write',
  'reference:read',
  'changes:read',
  'webhooks:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** What each scope grants, for the OpenAPI document and `npm run admin -- token create --help`-style texts. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  'employees:read': 'Read employees and employee jobs',
  'employees:write': 'Create and update employees and employee jobs',
  'applications:read': 'Read applications',
  'applications:write': 'Create and update applications',
  'reference:read': 'Read locations, payout field definitions and custom field definitions',
  'changes:read': 'Read the change feed',
  'webhooks:manage': 'Create, list, read and delete webhook subscriptions',
};
