import {
  ATTACHMENT_CONTENT_TYPES,
  MAX_ATTACHMENT_SIZE,
  MAX_FILE_NAME_LENGTH,
  UPLOAD_EXPIRES_SECONDS,
  DOWNLOAD_EXPIRES_SECONDS,
  REJECTION_REASONS,
  FILE_NAME_PATTERN,
} from '../domain/attachments';
import { datetime, notBlank } from './common';

/** Application attachments (contract §19). */

export const AttachmentCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['file_name', 'content_type', 'size'],
  properties: {
    file_name: {
      type: 'string',
      ...notBlank,
      // Not blank (x-not-blank), and none of the characters fileNameProblem refuses.
      pattern: FILE_NAME_PATTERN,
      maxLength: MAX_FILE_NAME_LENGTH,
      description: `1..${MAX_FILE_NAME_LENGTH} characters, no \`/\`, \`\\\` or control characters`,
      examples: ['cv.pdf'],
    },
    content_type: {
      type: 'string',
      enum: ATTACHMENT_CONTENT_TYPES,
      description: 'The file’s type; the stored bytes must match it (checked by their signature after the upload)',
      examples: ['application/pdf'],
    },
    size: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_ATTACHMENT_SIZE,
      description: 'The file’s exact size in bytes (the upload must have exactly this size)',
      examples: [48213],
    },
  },
} as const;

const attachmentProperties = {
  id: { type: 'string' },
  application_id: { type: 'string' },
  file_name: { type: 'string' },
  content_type: { type: 'string', enum: ATTACHMENT_CONTENT_TYPES },
  size: { type: 'integer' },
  status: {
    type: 'string',
    enum: ['pending', 'available', 'rejected'],
    description:
      '`pending` until the uploaded bytes were checked (and, where the deployment scans uploads for malware, scanned); then `available`, or `rejected` (the bytes are deleted)',
  },
  rejection_reason: {
    type: 'string',
    enum: REJECTION_REASONS,
    description:
      'Only when `rejected`: the stored size differs from `size` (`size_mismatch`), the content is not of `content_type` (`type_mismatch`), or, where the deployment scans uploads for malware, the scan found malware (`malware_detected`) or could not judge the file (`scan_failed`)',
  },
  created_at: datetime,
  updated_at: datetime,
} as const;

const attachmentRequired = [
  'id',
  'application_id',
  'file_name',
  'content_type',
  'size',
  'status',
  'created_at',
  'updated_at',
] as const;

export const Attachment = {
  type: 'object',
  additionalProperties: false,
  required: attachmentRequired,
  properties: {
    ...attachmentProperties,
    download_url: {
      type: 'string',
      format: 'uri',
      description: `Only when \`available\`: a presigned GET valid for ${DOWNLOAD_EXPIRES_SECONDS / 60} minutes, answering the exact bytes with the declared Content-Type and \`Content-Disposition: attachment\`. Read the record again for a fresh one.`,
    },
  },
} as const;

export const AttachmentCreated = {
  type: 'object',
  additionalProperties: false,
  required: [...attachmentRequired, 'upload'],
  properties: {
    ...attachmentProperties,
    upload: {
      type: 'object',
      additionalProperties: false,
      required: ['method', 'url', 'fields', 'expires_at'],
      description: `The upload step: POST \`multipart/form-data\` to \`url\` with every pair of \`fields\` (in order) and then the file as the part \`file\`; S3 answers 204. The policy admits exactly this key, \`size\` bytes and \`content_type\`, for ${UPLOAD_EXPIRES_SECONDS / 60} minutes. The record turns \`available\` (or \`rejected\`) within seconds of the upload.`,
      properties: {
        method: { type: 'string', const: 'POST' },
        url: { type: 'string', format: 'uri' },
        fields: { type: 'object', additionalProperties: { type: 'string' } },
        expires_at: datetime,
      },
      examples: [
        {
          method: 'POST',
          url: 'https://hr-api-attachments.s3.eu-central-1.amazonaws.com/',
          fields: {
            'Content-Type': 'application/pdf',
            bucket: 'hr-api-attachments',
            'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
            'X-Amz-Credential': 'ASIA.../20261125/eu-central-1/s3/aws4_request',
            'X-Amz-Date': '20261125T081530Z',
            'X-Amz-Security-Token': '...',
            key: 'attachments/acme/app_123/att_0193a1b2c3d4e5f6a7b8',
            Policy: 'eyJleHBpcmF0aW9uIjoi...',
            'X-Amz-Signature': '5f1c...',
          },
          expires_at: '2026-11-25T08:25:30.123Z',
        },
      ],
    },
  },
} as const;
