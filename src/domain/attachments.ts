/**
 * Application attachments (contract §19): what may be uploaded, where it is
 * stored, and the verdict on what arrived. No I/O: the signature library's
 * answer (the check in src/services/attachments.ts) comes in as a value.
 */

export const ATTACHMENT_CONTENT_TYPES = [
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.oasis.opendocument.text',
  'text/plain',
  'image/png',
  'image/jpeg',
] as const;
export type AttachmentContentType = (typeof ATTACHMENT_CONTENT_TYPES)[number];

export const MAX_ATTACHMENT_SIZE = 20 * 1024 * 1024;
export const MAX_ATTACHMENTS_PER_APPLICATION = 20;
export const MAX_FILE_NAME_LENGTH = 255;

/** A presigned POST is valid this long (contract: at most 15 minutes). */
export const UPLOAD_EXPIRES_SECONDS = 10 * 60;
/** A download URL is valid this long (contract: at most 5 minutes). */
export const DOWNLOAD_EXPIRES_SECONDS = 5 * 60;
/** The first bytes the check reads to recognise a binary type by its signature. */
export const SIGNATURE_BYTES = 64 * 1024;

export type AttachmentStatus = 'pending' | 'available' | 'rejected';
export const REJECTION_REASONS = ['size_mismatch', 'type_mismatch', 'malware_detected', 'scan_failed'] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/**
 * Where objects live: an upload arrives under UPLOAD_PREFIX (the presigned
 * POST admits that key only; the bucket's event on this prefix starts the
 * check, and a lifecycle rule expires what stays there a day), and a checked
 * file is copied under STORED_PREFIX, where downloads read it. The IAM
 * grants name these prefixes.
 */
export const UPLOAD_PREFIX = 'uploads/';
export const STORED_PREFIX = 'attachments/';

export interface AttachmentRef {
  readonly businessId: string;
  readonly applicationId: string;
  readonly id: string;
}

/**
 * The object key of an attachment under a prefix: business, application and
 * attachment id, none of them personal data (the file name is not in it).
 * The check derives the record's key from it, so an upload event needs no lookup.
 */
const keyUnder = (prefix: string, ref: AttachmentRef): string =>
  `${prefix}${encodeURIComponent(ref.businessId)}/${encodeURIComponent(ref.applicationId)}/${ref.id}`;
export const uploadKeyOf = (ref: AttachmentRef): string => keyUnder(UPLOAD_PREFIX, ref);
export const storedKeyOf = (ref: AttachmentRef): string => keyUnder(STORED_PREFIX, ref);

/** The attachment an upload key names; undefined for any other key (not under UPLOAD_PREFIX, or not ours). */
export function refOfUploadKey(key: string): AttachmentRef | undefined {
  if (!key.startsWith(UPLOAD_PREFIX)) return undefined;
  const parts = key.slice(UPLOAD_PREFIX.length).split('/');
  if (parts.length !== 3 || !isAttachmentId(parts[2] ?? '')) return undefined;
  try {
    const [businessId, applicationId, id] = parts.map((p) => decodeURIComponent(p)) as [string, string, string];
    return businessId && applicationId ? { businessId, applicationId, id } : undefined;
  } catch {
    return undefined;
  }
}

/** Ids sort by creation: `att_` + milliseconds (hex, 12 digits) + 8 random hex digits. */
export const newAttachmentId = (nowMs: number, random: string): string =>
  `att_${nowMs.toString(16).padStart(12, '0')}${random}`;
export const isAttachmentId = (id: string): boolean => /^att_[0-9a-f]{20}$/.test(id);

/** C0, DEL and C1 controls, and the separators of either path syntax: never in a file name. */
const FILE_NAME_REFUSED = '/\\\\\\u0000-\\u001f\\u007f-\\u009f';
/** A file name as a JSON Schema pattern (ECMA-262) says it: a character that is not white space, and none refused. */
export const FILE_NAME_PATTERN = `^[^${FILE_NAME_REFUSED}]*[^${FILE_NAME_REFUSED}\\s][^${FILE_NAME_REFUSED}]*$`;

/** Why a file name is refused: blank, or too long / a path separator / a control character. */
export function fileNameProblem(name: string): 'blank' | 'invalid' | undefined {
  if (name.trim() === '') return 'blank';
  if ([...name].length > MAX_FILE_NAME_LENGTH) return 'invalid';
  if (new RegExp(`[${FILE_NAME_REFUSED}]`, 'u').test(name)) return 'invalid';
  return undefined;
}

/**
 * The mime types the signature library may report for a declared type:
 * a .doc is an OLE compound file, which the library names by its container.
 */
const SIGNATURES: Readonly<Record<Exclude<AttachmentContentType, 'text/plain'>, readonly string[]>> = {
  'application/pdf': ['application/pdf'],
  'application/msword': ['application/x-cfb', 'application/msword'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': [
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ],
  'application/vnd.oasis.opendocument.text': ['application/vnd.oasis.opendocument.text'],
  'image/png': ['image/png'],
  'image/jpeg': ['image/jpeg'],
};

/** What the check found in the stored object. */
export interface StoredContent {
  readonly size: number;
  /** The mime type the signature library recognised in the first bytes, if any. */
  readonly detected: string | undefined;
  /** For text/plain only: whether the whole object is valid UTF-8 without NUL. */
  readonly utf8WithoutNul?: boolean;
}

/** available, or rejected with its reason (size is checked first: a truncated file fails on size). */
export function verdictOf(
  declared: { readonly size: number; readonly contentType: AttachmentContentType },
  stored: StoredContent,
): { status: 'available' } | { status: 'rejected'; reason: RejectionReason } {
  if (stored.size !== declared.size) return { status: 'rejected', reason: 'size_mismatch' };
  const typeOk =
    declared.contentType === 'text/plain'
      ? stored.utf8WithoutNul === true
      : stored.detected !== undefined && SIGNATURES[declared.contentType].includes(stored.detected);
  return typeOk ? { status: 'available' } : { status: 'rejected', reason: 'type_mismatch' };
}

/** The EventBridge detail-type of GuardDuty's scan result for one S3 object. */
export const SCAN_RESULT_DETAIL_TYPE = 'GuardDuty Malware Protection Object Scan Result';

export type ScanVerdict = { clean: true } | { clean: false; reason: 'malware_detected' | 'scan_failed' };

/**
 * GuardDuty Malware Protection for S3's `scanResultStatus` (its EventBridge
 * event SCAN_RESULT_DETAIL_TYPE): only NO_THREATS_FOUND clears a file;
 * THREATS_FOUND is malware, and a scan that could not judge the file
 * (UNSUPPORTED, ACCESS_DENIED, FAILED, or a status this code does not know)
 * clears nothing either.
 */
export function scanVerdictOf(scanResultStatus: string | undefined): ScanVerdict {
  if (scanResultStatus === 'NO_THREATS_FOUND') return { clean: true };
  return { clean: false, reason: scanResultStatus === 'THREATS_FOUND' ? 'malware_detected' : 'scan_failed' };
}

/** The scanned object of a scan-result event's `detail`, and its result; undefined for anything else. */
export function scanResultOf(detail: unknown): { bucket: string; key: string; status: string | undefined } | undefined {
  if (typeof detail !== 'object' || detail === null) return undefined;
  const { s3ObjectDetails, scanResultDetails } = detail as {
    s3ObjectDetails?: { bucketName?: unknown; objectKey?: unknown };
    scanResultDetails?: { scanResultStatus?: unknown };
  };
  const bucket = s3ObjectDetails?.bucketName;
  const key = s3ObjectDetails?.objectKey;
  if (typeof bucket !== 'string' || typeof key !== 'string') return undefined;
  const status = scanResultDetails?.scanResultStatus;
  return { bucket, key, status: typeof status === 'string' ? status : undefined };
}

/**
 * `Content-Disposition: attachment` with the file name: an ASCII fallback
 * (quotes, backslashes and non-ASCII replaced) and the exact name in RFC 5987
 * form, so no browser renders the file as a page and the name survives.
 */
export function contentDispositionOf(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
