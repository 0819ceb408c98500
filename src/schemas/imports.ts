import {
  EXTERNAL_ID_PATTERN,
  FAILURE_REASONS,
  IMPORT_FORMATS,
  IMPORT_MODES,
  IMPORT_TYPES,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ROWS,
  ROW_RESULTS,
} from '../domain/imports';
import { datetime } from './common';

/** Bulk imports (contract §22). */

export const ImportCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'format', 'size'],
  properties: {
    type: {
      enum: [...IMPORT_TYPES],
      description:
        'What the rows create or update; the token needs `employees:write` for employees and employee_jobs, `applications:write` for applications (403 `insufficient_scope` naming it otherwise)',
    },
    format: {
      enum: [...IMPORT_FORMATS],
      description: `jsonl: one JSON object per line, the body a POST of that type takes, plus optional \`external_id\` (employee_jobs also \`employee_external_id\`). csv: RFC 4180, UTF-8 (a BOM is skipped), the first line names the fields, separator \`,\` or \`;\` (from the first line), quoted cells may hold separators and line breaks, an empty cell is an absent field, cells read by the field's type (numbers, true/false, a JSON array for array fields). Blank lines are skipped; at most ${MAX_IMPORT_ROWS} rows`,
    },
    mode: {
      enum: [...IMPORT_MODES],
      description:
        'apply (default): write; validate: every check, nothing written, the results say what apply would do',
    },
    size: { type: 'integer', minimum: 1, maximum: MAX_IMPORT_BYTES, description: 'The file’s size in bytes' },
  },
} as const;

const upload = {
  type: 'object',
  additionalProperties: false,
  required: ['method', 'url', 'fields', 'expires_at'],
  description:
    'POST the file as multipart/form-data to `url`: every pair of `fields`, then the file as the part `file`. The import runs once it lands',
  properties: {
    method: { const: 'POST' },
    url: { type: 'string' },
    fields: { type: 'object', additionalProperties: { type: 'string' } },
    expires_at: { ...datetime, description: 'The form is valid until then (15 minutes)' },
  },
} as const;

export const ImportCreated = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'format', 'mode', 'status', 'created_at', 'upload'],
  properties: {
    id: { type: 'string' },
    type: { enum: [...IMPORT_TYPES] },
    format: { enum: [...IMPORT_FORMATS] },
    mode: { enum: [...IMPORT_MODES] },
    status: { const: 'awaiting_upload' },
    created_at: datetime,
    upload,
  },
} as const;

const count = { type: 'integer', minimum: 0 } as const;

export const Import = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'format', 'mode', 'status', 'created_at', 'updated_at', 'counts', 'results_url'],
  properties: {
    id: { type: 'string' },
    type: { enum: [...IMPORT_TYPES] },
    format: { enum: [...IMPORT_FORMATS] },
    mode: { enum: [...IMPORT_MODES] },
    status: {
      enum: ['awaiting_upload', 'running', 'completed', 'failed', 'cancelled'],
      description:
        'awaiting_upload → running → completed (every row applied or rejected) or failed (`failure_reason`: nothing written when the file check fails; the rows applied before `run_failed` or `token_revoked` stay, counted); cancelled by DELETE while awaiting the upload. An upload not made within 24 hours fails the import (`upload_expired`)',
    },
    failure_reason: {
      enum: [...FAILURE_REASONS],
      description:
        'When failed: why. The whole file refused, nothing written (size_mismatch, not_utf8, malformed_file, too_many_rows, upload_expired); or run_failed: its run kept failing or made no progress for longer than a run may take, the rows applied before stay, counted',
    },
    failure_row: {
      type: 'integer',
      minimum: 0,
      description: 'When malformed_file: the row where reading broke (0: the CSV header line)',
    },
    created_at: datetime,
    updated_at: datetime,
    counts: {
      type: 'object',
      additionalProperties: false,
      required: ['rows', 'created', 'updated', 'unchanged', 'skipped', 'failed'],
      description: 'Rows done so far (while running, stored at least every 10 seconds); the results add up to rows',
      properties: { rows: count, created: count, updated: count, unchanged: count, skipped: count, failed: count },
    },
    results_url: {
      type: ['string', 'null'],
      description:
        'When completed: a presigned GET of the results file (JSON Lines, one ImportResultLine per row in row order), valid 5 minutes; kept 7 days',
    },
  },
} as const;

/** One line of the results file (documented in the OpenAPI document's components). */
export const ImportResultLine = {
  type: 'object',
  additionalProperties: false,
  required: ['row', 'external_id', 'result', 'id', 'errors'],
  description: 'No field values: ids, row numbers and error messages only',
  properties: {
    row: { type: 'integer', minimum: 1, description: 'From 1 in file order (CSV: the header is not a row)' },
    external_id: { type: ['string', 'null'], pattern: EXTERNAL_ID_PATTERN },
    result: {
      enum: [...ROW_RESULTS],
      description:
        'created; updated (an earlier import’s external_id: the fields the row names, as PUT); unchanged (those fields held those values: nothing written); skipped (an employee job whose external_id was imported: jobs have no update); failed (`errors`)',
    },
    id: {
      type: ['string', 'null'],
      description: 'The record; null when failed and for would-be creations when validating',
    },
    errors: {
      type: ['object', 'null'],
      additionalProperties: { type: 'array', items: { type: 'string' } },
      description:
        'When failed: the field map a single request would answer (contract §3), in the language of the POST that created the import',
    },
  },
} as const;
