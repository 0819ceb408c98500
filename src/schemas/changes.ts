import { datetime } from './common';
import { SYSTEM_JOBS } from '../domain/audit';
import { CHANGE_TYPES, DEFAULT_LIMIT, MAX_CURSOR_LENGTH, MAX_LIMIT } from '../domain/change-feed';

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
            'The retention job (contract §17), or the check of uploaded attachments (`attachment.available`, `attachment.rejected`)',
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

export const ChangeEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['cursor', 'type', 'id', 'occurred_at', 'actor', 'request_id', 'data'],
  properties: {
    cursor: { type: 'string', description: 'Pass as `after` to continue right after this entry' },
    type: { type: 'string', enum: [...CHANGE_TYPES] },
    id: { type: 'string', description: 'Id of the record the change is about' },
    occurred_at: { ...datetime, description: 'When the change was committed (the record’s updated_at)' },
    actor: { ...ChangeActor, description: 'Who made the change; kept when the record is erased' },
    request_id: {
      type: ['string', 'null'],
      description: 'The `X-Request-Id` answered to the request that made the change; null for system and admin writes',
    },
    changed_fields: {
      type: 'array',
      items: { type: 'string' },
      description:
        '`*.updated` entries only: the sorted names of the fields whose value changed (never the values; `updated_at`, which every update moves, is left out). For `employee.updated` after a job was created: the derived fields that moved',
    },
    data: {
      type: ['object', 'null'],
      description:
        'The record exactly as its GET answered right after this change (Employee, EmployeeJob, Application, or Attachment without `download_url` and `upload`); null for application.deleted and attachment.deleted',
    },
    restricted_fields: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Only for a token with a field grant of the record’s type: the sorted fields of that type withheld from it (absent from `data`, never null)',
    },
  },
} as const;

export const ChangePage = {
  type: 'object',
  additionalProperties: false,
  required: ['entries', 'next_cursor'],
  properties: {
    entries: { type: 'array', items: ChangeEntry, maxItems: MAX_LIMIT },
    next_cursor: {
      type: 'string',
      description:
        'Always present: the position after this page (the last entry’s cursor, or `after` itself when nothing is new). Poll with it forever.',
    },
  },
} as const;
