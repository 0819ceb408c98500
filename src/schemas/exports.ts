import { EXPORT_TYPES } from '../domain/exports';
import { datetime } from './common';

/** Exports (contract §20). */

export const ExportCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['types'],
  properties: {
    types: {
      type: 'array',
      items: { type: 'string', enum: [...EXPORT_TYPES] },
      uniqueItems: true,
      minItems: 1,
      description:
        'What to export. The token needs the read scope of each (`employees:read` for employees and employee_jobs, `applications:read`) besides `changes:read`; without one the answer is 403 `insufficient_scope` naming it',
    },
  },
} as const;

export const ExportCreated = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'created_at'],
  properties: {
    id: { type: 'string' },
    status: { const: 'running' },
    created_at: datetime,
  },
} as const;

export const Export = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'types', 'counts', 'feed_cursor', 'created_at', 'expires_at'],
  properties: {
    id: { type: 'string' },
    status: {
      type: 'string',
      enum: ['running', 'completed', 'failed'],
      description: 'Poll until `completed` (or `failed`: start another export)',
    },
    types: { type: 'array', items: { type: 'string', enum: [...EXPORT_TYPES] } },
    counts: {
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      description: 'Records per type in the file (while running: in the part written so far)',
    },
    feed_cursor: {
      type: 'string',
      description:
        'The change feed’s position taken before the first record was read: load the file, then follow `GET /changes?after=<feed_cursor>` and apply every entry (upsert `data`, remove on `application.deleted`; an entry whose `data` is null was erased since). File + feed = exactly what the API serves, whatever was written while the export ran',
    },
    created_at: datetime,
    completed_at: datetime,
    download_url: {
      type: 'string',
      description:
        'When completed: a presigned GET of the JSON Lines file, valid 5 minutes (ask again for a fresh one). One line per record: `{"type": "employee"|"employee_job"|"application", "data": <the record as its GET returns it>}`',
    },
    expires_at: { ...datetime, description: 'The file and this export are gone after this (24 hours after creation)' },
  },
} as const;
