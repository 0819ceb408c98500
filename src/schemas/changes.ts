import { datetime } from './common';
import { SYSTEM_JOBS } from '../domain/audit';
import { CHANGE_TYPES, DEFAULT_LIMIT, MAX_CURSOR_LENGTH, MAX_LIMIT, type ChangeType } from '../domain/change-feed';

/** The change feed (contract §13). */

export const ChangesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      description:
        'An opaque cursor from an earlier answer (an entry’s `cursor` or `next_cursor`); omitted: from the oldest retained change',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_LIMIT,
      description: `Entries per page, default ${DEFAULT_LIMIT}; plain decimal digits`,
    },
    types: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: `Comma-separated change types to return (others are skipped): ${CHANGE_TYPES.join(', ')}`,
    },
    token_id: {
      type: 'string',
      pattern: '^[0-9a-f]{12}$',
      description:
        'Only the changes made with this token (its `actor.token_id`, the hash prefix `npm run admin -- token list` shows); others are skipped like unwanted types, so a page may hold fewer entries than `limit` (keep following `next_cursor`)',
    },
  },
} as const;

/** Who made a change (contract §20). */
export const ChangeActor = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'token_id', 'token_name'],
      properties: {
        type: { const: 'token', description: 'A write through the API' },
        token_id: {
          type: 'string',
          pattern: '^[0-9a-f]{12}$',
          description: 'The token’s hash prefix, as `npm run admin -- token list` shows it (never the token)',
        },
        token_name: { type: 'string', description: 'The token’s name (`token create --name`)' },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'name'],
      properties: {
        type: { const: 'system' },
        name: {
          type: 'string',
          enum: SYSTEM_JOBS,
          description:
            'The retention job (contract §17), the check of uploaded attachments (`attachment.available`, `attachment.rejected`), or the effective-date run (`employee.updated` when a job starts or ends at midnight in the business timezone, contract §26)',
        },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type'],
      properties: { type: { const: 'admin', description: 'The admin tool (`npm run admin`)' } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'import_id', 'token_id', 'token_name'],
      properties: {
        type: {
          const: 'import',
          description: 'A bulk import (contract §22); `request_id` is that of its creating POST',
        },
        import_id: { type: 'string' },
        token_id: { type: 'string', pattern: '^[0-9a-f]{12}$', description: 'The token that created the import' },
        token_name: { type: 'string' },
      },
    },
  ],
} as const;

/** A component of the OpenAPI document: the change entries name the record schemas their `data` holds. */
const component = (name: string) => ({ $ref: `#/components/schemas/${name}` }) as const;
const orNull = (name: string) => ({ oneOf: [component(name), { type: 'null' }] }) as const;

/**
 * One kind of change-feed entry: `data` is the record of its `types` exactly as its GET answered right after the
 * change, so a generated client knows `data` by `type`.
 */
const changeOf = (types: readonly ChangeType[], data: object, dataDescription: string) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['cursor', 'type', 'id', 'occurred_at', 'actor', 'request_id', 'data'],
    properties: {
      cursor: { type: 'string', description: 'Pass as `after` to continue right after this entry' },
      type: { type: 'string', enum: types },
      id: { type: 'string', description: 'Id of the record the change is about' },
      occurred_at: { ...datetime, description: 'When the change was committed (the record’s updated_at)' },
      actor: { ...ChangeActor, description: 'Who made the change; kept when the record is erased' },
      request_id: {
        type: ['string', 'null'],
        description:
          'The `X-Request-Id` answered to the request that made the change; null for system and admin writes',
      },
      changed_fields: {
        type: 'array',
        items: { type: 'string' },
        description:
          '`*.updated` entries only: the sorted names of the fields whose value changed (never the values; `updated_at`, which every update moves, is left out). For `employee.updated` after a job was created, or by `effective_date` when a day began: the derived fields that moved',
      },
      data: { ...data, description: dataDescription },
      restricted_fields: {
        type: 'array',
        items: { type: 'string' },
        description:
          'Only for a token with a field grant of the record’s type: the sorted fields of that type withheld from it (absent from `data`, never null)',
      },
    },
  }) as const;

const AS_GET = 'The record exactly as its GET answered right after this change';
const ERASED = '; null once the application was erased (DELETE or retention)';

export const EmployeeChange = changeOf(['employee.created', 'employee.updated'], component('Employee'), AS_GET);
export const EmployeeJobChange = changeOf(['employee_job.created'], component('EmployeeJob'), AS_GET);
export const ApplicationChange = changeOf(
  ['application.created', 'application.updated'],
  orNull('Application'),
  AS_GET + ERASED,
);
export const AttachmentChange = changeOf(
  ['attachment.available', 'attachment.rejected'],
  orNull('Attachment'),
  `${AS_GET}, without \`download_url\`${ERASED}`,
);
export const DeletionChange = changeOf(
  ['application.deleted', 'attachment.deleted'],
  { type: 'null' },
  'Always null: the record is gone',
);
export const ImportChange = changeOf(
  ['import.completed', 'import.failed'],
  component('Import'),
  'The import as it ended',
);

/** Every change type's entry schema, by name: the discriminator's mapping (a new type must be named here). */
const CHANGE_SCHEMA_OF: Readonly<Record<ChangeType, string>> = {
  'employee.created': 'EmployeeChange',
  'employee.updated': 'EmployeeChange',
  'employee_job.created': 'EmployeeJobChange',
  'application.created': 'ApplicationChange',
  'application.updated': 'ApplicationChange',
  'application.deleted': 'DeletionChange',
  'attachment.available': 'AttachmentChange',
  'attachment.rejected': 'AttachmentChange',
  'attachment.deleted': 'DeletionChange',
  'import.completed': 'ImportChange',
  'import.failed': 'ImportChange',
};

/** A change-feed entry (contract §13): one of the kinds above, told apart by `type`. */
export const ChangeEntry = {
  oneOf: [...new Set(Object.values(CHANGE_SCHEMA_OF))].map(component),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(Object.entries(CHANGE_SCHEMA_OF).map(([type, name]) => [type, component(name).$ref])),
  },
} as const;

export const ChangePage = {
  type: 'object',
  additionalProperties: false,
  required: ['entries', 'next_cursor'],
  properties: {
    entries: { type: 'array', items: component('ChangeEntry'), maxItems: MAX_LIMIT },
    next_cursor: {
      type: 'string',
      description:
        'Always present: the position after this page (the last entry’s cursor, or `after` itself when nothing is new). Poll with it forever.',
    },
  },
} as const;
