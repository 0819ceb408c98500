import { datetime } from './common';
import { CHANGE_TYPES, DEFAULT_LIMIT, MAX_LIMIT } from '../domain/change-feed';

/** The change feed (contract §13). */

export const ChangesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
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
  },
} as const;

export const ChangeEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['cursor', 'type', 'id', 'occurred_at', 'data'],
  properties: {
    cursor: { type: 'string', description: 'Pass as `after` to continue right after this entry' },
    type: { type: 'string', enum: [...CHANGE_TYPES] },
    id: { type: 'string', description: 'Id of the record the change is about' },
    occurred_at: { ...datetime, description: 'When the change was committed (the record’s updated_at)' },
    data: {
      type: ['object', 'null'],
      description:
        'The record exactly as its GET answered right after this change (Employee, EmployeeJob or Application); null for application.deleted',
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
