import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from '../http/idempotency-key';
import { MAX_BODY_BYTES } from '../http/middleware';
import { ROUTES, scopesOf, type RouteDefinition } from '../http/routes';
import { pageEnvelope } from '../schemas/common';
import { SCHEMAS } from '../schemas';
import { LANGUAGES } from '../http/i18n/messages';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../domain/scopes';
import { RATE_LIMIT_BOUNDS } from '../domain/rate-window';

/** Contract §18's ranges, stated in the rate-limit texts below. */
const { requests: REQUESTS, windowSeconds: WINDOW } = RATE_LIMIT_BOUNDS;

/**
 * The OpenAPI 3.1 document (contract §12), generated from the route table and
 * the schema registry: the schemas the handlers validate with are the
 * document's components, so the two cannot drift. Pure: same input, same
 * document; nothing here touches the network, the table or the file system.
 *
 * Statuses per operation follow from the route row (contract §3, §11):
 * - success: 201 + Location + ETag (POST), 200 + ETag (single read, PUT), 200 + Link (lists);
 * - 400: bad JSON (routes with a body, ErrorBody) / query field errors (routes with a query, FieldErrors);
 * - 401 and 403 with WWW-Authenticate (auth routes; the route's scope is the operation's security
 *   requirement); 404 (`{id}` routes and `extraStatuses`);
 * - 409 Idempotency-Key reuse (POST); 412 If-Match (PUT); 413, 415, 422 (routes with a body);
 * - 503 with Retry-After (routes that touch the table); 500 and 429 (stage throttling) on every route.
 * Unknown paths and wrong methods (404/405 with Allow) are answered by the
 * `$default` fallback, which is not an operation; the description says so.
 */

export type JsonObject = Record<string, unknown>;

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, JsonObject>;
  content?: Record<string, { schema: JsonObject; example?: unknown }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: JsonObject[];
  parameters?: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, OpenApiResponse>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    contact: { name: string; url?: string };
    license: { name: string; identifier?: string; url?: string };
  };
  servers: { url: string; description?: string }[];
  security: JsonObject[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  /** What the service sends (OpenAPI 3.1): the webhook delivery. */
  webhooks: Record<string, { post: JsonObject }>;
  components: {
    schemas: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
}

/** The body limit the runtime enforces, as the document states it. */
const MAX_BODY_MIB = MAX_BODY_BYTES / (1024 * 1024);
export const BEARER_SCHEME = 'bearerAuth';
const API_VERSION = '1.0.0';

const TAG_DESCRIPTIONS: Record<string, string> = {
  Employees: 'Employees of the business, with fields derived from their jobs (computed at read time).',
  'Employee jobs': 'Jobs (contracts) of an employee; they drive the employee’s derived fields.',
  Applications: 'Job applications, including speculative ones (no job opening).',
  'Reference data': 'Locations, payout field definitions and custom field definitions of the business (read-only).',
  'Change feed':
    'Every committed change, exactly once, per record in commit order: sync by following `next_cursor` instead of polling `updated_at_since`.',
  Meta: 'This document and its HTML rendering; no token needed.',
  Attachments: `CVs and documents of an application (PDF, Word, OpenDocument text, plain text, PNG, JPEG; up to 20 MiB, at most 20 per application). Three steps:

1. \`POST /applications/{id}/attachments\` with \`{"file_name": "cv.pdf", "content_type": "application/pdf", "size": 48213}\` answers \`201\` with the record (\`status: "pending"\`) and \`upload\`.
2. Upload the file straight to storage (no API token): \`POST\` \`multipart/form-data\` to \`upload.url\` with every pair of \`upload.fields\`, then the file as the part \`file\`; storage answers \`204\`. The form admits exactly the declared size and type, until \`upload.expires_at\` (at most 15 minutes).

\`\`\`sh
curl -F Content-Type=application/pdf -F bucket=... -F X-Amz-Algorithm=AWS4-HMAC-SHA256 -F X-Amz-Credential=... \\
     -F X-Amz-Date=... -F key=attachments/... -F Policy=... -F X-Amz-Signature=... -F file=@cv.pdf "$UPLOAD_URL"
\`\`\`

3. Within seconds the stored bytes are checked (their size, and their type by the file's signature; plain text must be UTF-8 without NUL): the record becomes \`available\` (the change feed and webhooks get \`attachment.available\`), or \`rejected\` with \`rejection_reason\` \`size_mismatch\` or \`type_mismatch\` and the bytes deleted (\`attachment.rejected\`). Where the deployment scans uploads for malware, a file that passes stays \`pending\` until the scan result arrives (usually seconds to a minute): clean makes it \`available\`, malware makes it \`rejected\` with \`malware_detected\`, a file the scan could not judge \`rejected\` with \`scan_failed\`. An \`available\` record's GET carries \`download_url\`, valid for 5 minutes, which answers the bytes with the declared type and \`Content-Disposition: attachment\`.

Deleting an attachment deletes its bytes; erasing the application (DELETE or retention) erases its attachments first.`,
  Exports:
    'A full copy of the records in one JSON Lines file, with the change-feed cursor to follow from: the first full sync of an integration, then the feed.',
  Imports:
    'A whole file of employees, employee jobs or applications (JSON Lines or CSV) checked row by row exactly as the single requests, applied once, safe to run again (`external_id` upserts), with a results file per row. Upload with the presigned form the POST answers, as for attachments.',
  Webhooks:
    'Signed deliveries of change-feed entries (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`), in feed order per subscription, retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then the subscription is `disabled`.',
};

const DESCRIPTION = `HR and recruiting API: employees, employee jobs, applications and the reference data of one business.

## TypeScript client
The service's repository holds a typed client of this document (\`client/\`, package \`hr-api-client\`): its README,
section **Use the client** (\`README.md#use-the-client\`), shows how to install and use it. \`createClient({baseUrl, token})\`
has one method per \`operationId\` below, sends an \`Idempotency-Key\` with every write and reuses it when it retries
(429, 502, 503, 504, timeouts, dropped connections; waiting as \`Retry-After\` and \`RateLimit\` ask), pages through lists
(\`paginate\`), follows the change feed (\`changes\`) and verifies webhook deliveries (\`verifyWebhook\`).

## Authentication
Every request except this document and \`/docs\` sends \`Authorization: Bearer <token>\`. A token belongs to one business;
records of other businesses are invisible (404). Missing, malformed, unknown, revoked or expired tokens answer \`401\`
with \`WWW-Authenticate: Bearer\` (\`error="invalid_token"\` for a token that is not accepted).

A token carries scopes; each operation names the one it needs as its security requirement. GET operations need the
\`:read\` scope, POST and PUT the \`:write\` scope (a write scope does not imply the read scope). A token without it
answers \`403\` \`insufficient_scope\` with \`WWW-Authenticate: Bearer error="insufficient_scope", scope="<scope>"\`,
before the body is read; nothing is changed. Scopes:
${SCOPES.map((scope) => `- \`${scope}\`: ${SCOPE_DESCRIPTIONS[scope]}`).join('\n')}

## Rate limits
Every token has a limit of requests per sliding window (its own, or its business's default for tokens: 600 per 60 s
unless set), and its business a limit over all its tokens together (3000 per 60 s unless set). A limit is N requests
(${REQUESTS.min} to ${REQUESTS.max}) per W seconds (${WINDOW.min} to ${WINDOW.max}). Every answer to a
request with a valid token carries \`RateLimit-Policy: "token";q=600;w=60, "business";q=3000;w=60\` and
\`RateLimit: "token";r=<left>;t=<seconds>, "business";r=<left>;t=<seconds>\` (IETF RateLimit header fields). Over
either limit the answer is \`429\` \`rate_limited\` with \`Retry-After\` (whole seconds, 1 to W + 1: the window admits
again once it has passed): nothing was done, an \`Idempotency-Key\` it carried is not used, and the 429 does not count
against the limits. \`t\` is never more than W. A client that keeps \`r\` above 0 (or waits \`t\` seconds when it is 0)
is never refused. The operator raises a token's limit with
\`npm run admin -- token create BUSINESS --rate-limit N/W\` (a new token) or the business's fixture. Rarely the
deployment's stage throttle answers \`429\` before the service sees the request (\`{"message": "Too Many Requests"}\`,
none of these headers): retry with exponential backoff.

## Formats
JSON in and out (UTF-8). Requests with a body must send \`Content-Type: application/json\` (else \`415\`), at most ${MAX_BODY_MIB} MiB
(else \`413\`). Dates are \`YYYY-MM-DD\`; timestamps in responses are UTC with milliseconds. \`{locale}\` fields appear
once per locale of the business. Every response carries \`X-Request-Id\`; error bodies repeat it as \`request_id\`.

Numbers are finite JSON numbers; anything else is \`422\` \`is invalid\`. Decimal fields (\`time_hours\`,
\`time_percentage\`, \`time_table\` entries, \`float\` custom fields) take magnitudes below 10^15 with at most 6 digits
after the decimal point (\`x-max-decimals\` in the schemas, and \`multipleOf\` for generic tools); \`integer\` custom fields take whole numbers of magnitude at
most 2^53 - 1; \`currency\` custom fields take magnitudes below 10^15 and are stored rounded to 2 decimals. What you store
is what you read back. A body nested deeper than 64 levels, or with more than 1,000 keys in one object, is \`400\`
\`bad_request\`. Error bodies stay under 64 KiB: messages quote at most 100 characters of a value you sent (longer ones
end in \`…\`), and a field-error body reports at most 100 fields, those of the resource before unknown keys.

## Errors
- \`{"error": "<code>", "message": "...", "request_id": "..."}\` for \`bad_request\` (400), \`unauthorized\` (401),
  \`insufficient_scope\` (403),
  \`not_found\` (404), \`method_not_allowed\` (405, with \`Allow\`), \`not_acceptable\` (406, only the document and
  \`/docs\`, when \`Accept\` excludes their media type), \`idempotency_key_reused\` (409),
  \`cursor_expired\`, \`application_erased\` and \`subscription_deleted\` (410), \`precondition_failed\` (412), \`payload_too_large\` (413), \`unsupported_media_type\` (415), \`internal_error\` (500),
  \`service_unavailable\` (503, with \`Retry-After\`).
- Field errors \`{"<field>": ["<message>", ...]}\`, every failing field at once: \`422\` for bodies, \`400\` for query
  parameters. Messages: \`can't be blank\`, \`is invalid\`, \`is not included in the list\`, \`does not exist\`,
  \`has already been taken\`, \`must be accepted\`, \`must be on or after from\`, \`is not a known field\`,
  \`is not allowed\` (a webhook \`url\` the service will not call), \`must be less than or equal to 20\` (a 21st webhook
  subscription).
- An unknown path answers \`404\`; a known path with another method \`405\` with \`Allow\`.

## Languages
Send \`Accept-Language\` (q-values allowed) to get error texts in English (\`en\`), German (\`de\`) or Italian (\`it\`);
a regional tag matches its language (\`de-AT\` is \`de\`); \`*\`, no header, a malformed header or no match is \`en\`.
Every error response says which in \`Content-Language\`. Field keys and \`error\` codes are the same in every language;
field messages follow rails-i18n (\`can't be blank\` / \`muss ausgefüllt werden\` / \`non può essere lasciato in bianco\`, ...).

## Custom fields and locale fields
Employees, employee jobs and applications carry one \`cf_{id}\` key per custom field the business defines
(\`/employee_fields\`, \`/employee_job_fields\`, \`/application_fields\`); which ids exist, and what their values may
be, differs per business, so no static document can list them. The schemas therefore name every fixed field as a
property and admit \`cf_{id}\` keys through \`propertyNames\` (a key is a named field or matches \`^cf_[0-9]+$\`), not
through \`patternProperties\`: a validator enforces both the same, but code generators turn \`patternProperties\` into
a \`[key: string]\` index signature that would let a misspelled field (\`frist_name\`) compile. Generated types keep
the named fields strict; add \`cf_{id}\` values to a typed body by spreading an object typed
\`\` Record<\`cf_\${number}\`, unknown> \`\` (TypeScript) or your generator's equivalent. Locale fields
(\`name_de\`, \`name_it\`, \`name_en\`, ...) are named optional properties, present for the business's locales only.

## Validation a generic tool can repeat
Mandatory texts carry \`pattern: "\\\\S"\` (at least one character that is not white space, ECMA-262); URL, country,
IBAN and BIC fields a \`pattern\` beside the server's own \`format\` (\`http-url\`, \`country-code\`, \`iban\`, \`bic\`):
a validating proxy rejects what these reject, and every pattern admits only what the server accepts (URL hosts are DNS
names or dotted-quad IPv4 addresses; country codes are the assigned ones), except where no pattern can: the IBAN's
country and mod-97 checksum, as its description says. Decimal fields carry \`multipleOf\` beside \`x-max-decimals\`.

## Pagination
Lists take \`page\` (1..2147483647, default 1) and \`per_page\` (1..100, default 30), both plain decimal digits
(\`1e2\`, \`0x10\`, \`Infinity\`, \`1.5\`, \`-1\` are \`400\`), and answer the envelope
\`entries\`, \`current_page\`, \`per_page\`, \`total_entries\`, ordered by \`created_at\` then id, with an RFC 8288
\`Link\` header (\`first\`, \`prev\`, \`next\`, \`last\`).

## Safe retries and concurrency
POST takes an optional \`Idempotency-Key\`: a retry with the same key, method, path and body within 24 hours returns
the first response and creates nothing. Bodies compare as JSON values (key order and whitespace do not matter). The
same key with another body, or on another route or path, is \`409\` \`idempotency_key_reused\`. Once the application a key
created is erased (DELETE or retention), the key answers \`410\` \`application_erased\` and creates nothing (the erased
body is not kept, so this holds for any body). Single-record responses carry an \`ETag\`;
PUT with \`If-Match\` answers \`412\` and writes nothing when the record changed meanwhile.`;

/** Response headers, referenced from every response that carries them. */
const HEADERS: Record<string, JsonObject> = {
  XRequestId: {
    description: 'Id of this request; error bodies repeat it as `request_id`.',
    required: true,
    schema: { type: 'string' },
  },
  ETag: {
    description: 'Version of the record; changes whenever the record changes. Send it back in `If-Match` on PUT.',
    required: true,
    schema: { type: 'string' },
  },
  Location: { description: 'URL of the new record.', required: true, schema: { type: 'string' } },
  Link: {
    description: 'RFC 8288 links `first`, `prev`, `next`, `last` where they apply (keeps the filters of the request).',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  WWWAuthenticate: {
    description:
      'A `Bearer` challenge (RFC 6750): with `error="invalid_token"` for a token that is not accepted, with `error="insufficient_scope"` and the needed `scope` on 403.',
    required: true,
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description: `The limits this request counts against (IETF draft-ietf-httpapi-ratelimit-headers, structured fields): \`"token";q=<requests>;w=<seconds>, "business";q=<requests>;w=<seconds>\`, \`q\` ${REQUESTS.min} to ${REQUESTS.max} requests per sliding window of \`w\` ${WINDOW.min} to ${WINDOW.max} seconds. On every answer to a request with a valid token (errors and \`429\` included); not on \`401\`.`,
    schema: { type: 'string', pattern: '^"token";q=\\d+;w=\\d+, "business";q=\\d+;w=\\d+$' },
    example: '"token";q=600;w=60, "business";q=3000;w=60',
  },
  RateLimit: {
    description:
      'The request\'s standing against each limit: `r` requests left in the sliding window (0 to `q`), `t` whole seconds until the window frees capacity (0 to `w` of that limit: never more than its window): `"token";r=<remaining>;t=<seconds>, "business";r=<remaining>;t=<seconds>`. `r=0` names the exhausted limit of a `429`.',
    schema: { type: 'string', pattern: '^"token";r=\\d+;t=\\d+, "business";r=\\d+;t=\\d+$' },
    example: '"token";r=598;t=57, "business";r=2911;t=12',
  },
  ContentLanguage: {
    description: 'Language of the error texts (`message`, field messages), negotiated from `Accept-Language`.',
    required: true,
    schema: { type: 'string', enum: [...LANGUAGES] },
  },
};

/** What each operation does, beyond its summary (redocly: every operation has a description). */
const OPERATION_DESCRIPTIONS: Record<string, string> = {
  'create-employee':
    'Creates an employee. `first_name` and `last_name` are mandatory; `cf_{id}` keys set the custom employee fields (required ones must be sent). Derived job fields start empty.',
  'list-employees': 'A page of the employees of the business, oldest first.',
  'get-employee': 'One employee, with the fields derived from its jobs computed for today in the business’s time zone.',
  'update-employee':
    'Changes the keys sent and leaves the others alone; null clears an optional field. Send `If-Match` to update only the version you read.',
  'create-employee-job':
    'Creates a job of an existing employee (404 when `employee_id` is not an employee of the business). `to` may not be before `from`.',
  'list-employee-jobs': 'A page of employee jobs, optionally only those of one employee.',
  'get-employee-job': 'One employee job.',
  'list-employee-payout-fields': 'A page of the payout field definitions of the business.',
  'get-employee-payout-field': 'One payout field definition.',
  'list-locations': 'A page of the locations of the business, with their place in the location tree.',
  'get-location': 'One location, with its ancestors and subtree.',
  'list-employee-fields': 'A page of the custom employee field definitions: the `cf_{id}` keys employees accept.',
  'list-employee-job-fields':
    'A page of the custom employee job field definitions: the `cf_{id}` keys employee jobs accept.',
  'list-application-fields':
    'A page of the custom application field definitions: the `cf_{id}` keys applications accept.',
  'create-application':
    'Creates an application, for a job opening or speculative (no `job_id`). `accept_terms_and_conditions` must be `true`.',
  'delete-application':
    'Erases an application and every trace of the applicant (contract §17): afterwards the id answers 404, lists and their totals no longer count it, and no stored item (idempotency records included) keeps its name, email, phone, free text, campaign or custom field values. Erasing an id that is unknown or already erased answers 404.',
  'list-applications':
    'A page of applications, filtered by status, job opening (`null` = speculative) and creation or update time. Oldest first by `created_at`; with `updated_at_since` the page is ordered by `updated_at` ascending (contract §7), so a record written while you page moves to the end: to sync without missing a change, follow the change feed (`GET /services/api/v1/changes`) instead.',
  'get-application': 'One application.',
  'update-application':
    'Changes the keys sent and leaves the others alone; `job_id` and `accept_terms_and_conditions` are fixed at creation. Send `If-Match` to update only the version you read.',
  'list-changes':
    'The change feed (contract §13): every committed create, update and delete of employees, employee jobs and applications, each exactly once, in the order the writes to each record were committed, with the record as its GET answered right after the change. Start without `after` (the oldest retained change, 30 days), then pass back `next_cursor` forever; a cursor past retention answers 410. Reads the table with consistent reads, never an index, so it misses nothing while indexes lag. Every entry names who made the change (`actor`: the token, the retention job or the admin tool) and the `request_id` answered to that request; `*.updated` entries list the `changed_fields` (contract §20). `token_id` keeps only one token’s changes.',
  'create-export':
    'Starts an export (contract §20): every record of the types named, as its GET answers it, in one JSON Lines file (`{"type", "data"}` per line), and `feed_cursor`, the change feed’s position taken before the first record was read. Needs `changes:read` and the read scope of every type named (`employees:read` for `employees` and `employee_jobs`, `applications:read`). Answers 202 at once; poll the `Location` until `completed`. For a first full sync, load the file, then follow `GET /changes?after=<feed_cursor>` applying every entry: the result is exactly what the API serves, whatever was written while the export ran.',
  'get-export':
    'An export: `running`, `completed` or `failed`; records per type; `feed_cursor`; once completed a `download_url` valid 5 minutes (ask again for a fresh one). The file and the export are gone 24 hours after creation (404).',
  'create-import':
    'Starts a bulk import (contract §22): answers 201 with a presigned POST `upload` (valid 15 minutes) for the file, JSON Lines or CSV, one row per record of `type`, each the body a POST of that type takes (custom fields included) plus optional `external_id` (1..100 of `A-Z a-z 0-9 . _ : -`; `employee_jobs` rows may name their employee by `employee_external_id`). Once the upload lands the import runs: each row is checked exactly as its single request (same rules, uniqueness against stored records and earlier rows, messages in this request’s `Accept-Language`); a bad row never stops the others. A row whose `external_id` an earlier import kept updates that record with the fields it names (as PUT), or is `unchanged`; an employee job is `skipped`. `mode: validate` writes nothing. Every change has its feed entry with `actor` `{"type": "import", ...}` and this request’s `request_id`, and the import ends with `import.completed` or `import.failed`. One import per business at a time: 409 `import_in_progress` names the one awaiting its upload or running. Needs `employees:write` (employees, employee_jobs) or `applications:write` (applications).',
  'list-imports': 'A page of the business’s imports, newest first.',
  'get-import':
    'An import: status, `counts` (growing while it runs), `failure_reason` when failed (nothing written), and once completed a `results_url` valid 5 minutes: JSON Lines, one `ImportResultLine` per row in row order (ids, results, error messages; never a field value), kept 7 days. Needs the read or write scope of its type.',
  'delete-import':
    'Cancels an import still awaiting its upload (204, status `cancelled`; a file uploaded with its form afterwards is never applied). A running import answers 409 `import_in_progress`, an ended one 409 `import_finished`.',
  'create-webhook-subscription':
    'Subscribes a URL to change-feed entries (all types, or those in `types`). The response is the only place the signing `secret` ever appears: store it. The subscription receives the changes committed after it was created, one POST per entry, in feed order, signed as Standard Webhooks define. `url` must be `https` and must not resolve to a private, loopback, link-local, multicast or metadata address, in any spelling (IPv4-mapped, IPv4-compatible, NAT64, 6to4 and Teredo forms included; 422 `is not allowed`). A business has at most 20 subscriptions: the 21st answers 422 `{"webhook_subscriptions": ["must be less than or equal to 20"]}` (delete one first). A replay of this create (same Idempotency-Key) after the subscription was deleted answers 410 `subscription_deleted`, without the secret.',
  'list-webhook-subscriptions':
    'A page of the webhook subscriptions of the business, oldest first (never their secrets).',
  'get-webhook-subscription':
    'One webhook subscription: `status` (`disabled` after the last retry failed) and `last_delivery_error` (`HTTP <status>`, `timeout` or `connection failed`, nothing more); never the secret.',
  'delete-webhook-subscription':
    'Deletes a webhook subscription; once this has answered, nothing more is delivered to it.',
  'list-webhook-deliveries':
    'The delivery attempts of a subscription, newest first: every attempt since 00:00 UTC of the day 30 days ago (so at least the last 30 days), with the `webhook-id` it was sent with, the entry’s `cursor` and `type`, which attempt of that entry it was, when, how it ended (`HTTP <status>`, `timeout`, `connection failed`) and how long it took. Never a body or an answer’s body.',
  'resume-webhook-subscription':
    'Makes a `disabled` (or `active`) subscription `active` and answers it. It then receives, in feed order, every entry after `from_cursor` (a change-feed cursor within retention: an expired one answers 410 `cursor_expired`, a malformed one 422 `{"from_cursor": ["is invalid"]}`), or, without it, every entry its receiver has not acknowledged yet. Each entry keeps its `webhook-id`, so a receiver that deduplicates on it sees each change once. Send `{}` to resume where it stopped.',
  'ping-webhook-subscription':
    'Sends one signed `webhook.ping` entry (`data`: `{"subscription_id"}`) to the subscription’s URL through its delivery lane, whatever its `types` and also when it is `disabled`: one attempt, never retried, which the delivery log (`Location`) shows under the answered `webhook_id`. The subscription’s position, retries and `last_delivery_error` stay as they are.',
  'create-attachment':
    'Declares a file for the application and answers the presigned upload (`upload`): POST the form to `upload.url` with every pair of `upload.fields` and then the file as the part `file`, before `upload.expires_at`. The record starts `pending`; the upload is checked within seconds. At most 20 attachments per application (the 21st: 422 `{"attachments": ["must be less than or equal to 20"]}`).',
  'list-attachments':
    'A page of the attachments of an application, oldest first; `available` ones carry a fresh `download_url` (5 minutes).',
  'get-attachment':
    'One attachment. When `available` it carries `download_url`: a presigned GET valid for 5 minutes that answers the exact bytes with the declared type and `Content-Disposition: attachment`; read the record again for a new one.',
  'delete-attachment':
    'Deletes the attachment and its bytes (an earlier `download_url` stops working); the change feed gets `attachment.deleted`.',
  'get-openapi':
    'This document (OpenAPI 3.1), generated from the route table and the JSON Schemas the server validates with; no token needed.',
  'get-docs': 'An HTML rendering of this document (Redoc), self-contained; no token needed.',
};

/** Statuses only some routes have (RouteDefinition.extraStatuses), described once. */
const EXTRA_STATUS_RESPONSES: Record<string, (route: RouteDefinition) => OpenApiResponse> = {
  '410': (route) =>
    route.name === 'create-webhook-subscription'
      ? errorResponse(
          'The subscription this Idempotency-Key created has been deleted since; it is not created again and its secret is not shown: send a new key to subscribe again (`subscription_deleted`)',
          'subscription_deleted',
        )
      : route.method === 'POST'
        ? errorResponse(
            'The application this Idempotency-Key created was erased since (DELETE or retention); it is not created again: send a new key to create a new one (`application_erased`)',
            'application_erased',
          )
        : errorResponse(
            'The cursor is older than the change feed’s retention (30 days); start again without `after` (`cursor_expired`)',
            'cursor_expired',
          ),
};

const headerRef = (name: keyof typeof HEADERS & string): JsonObject => ({ $ref: `#/components/headers/${name}` });
const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject, example?: unknown): OpenApiResponse['content'] => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

const webhookHeader = (name: string, description: string): JsonObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/**
 * The delivery a subscription's URL receives (contract §14), signed as the
 * Standard Webhooks specification defines: the `standardwebhooks` package's
 * `verify(body, headers)` checks it.
 */
const WEBHOOKS: OpenApiDocument['webhooks'] = {
  change: {
    post: {
      operationId: 'receiveChange',
      summary: 'One change-feed entry, delivered to a webhook subscription',
      description:
        'Sent to the subscription’s `url`, one entry at a time in feed order. Answer `2xx` within 10 s to move on (at most 64 KiB of the answer is read); any other answer or none is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the subscription is `disabled`. Verify the signature with the `secret` from the subscription’s `201` (Standard Webhooks) and deduplicate on `webhook-id`.',
      tags: ['Webhooks'],
      security: [],
      parameters: [
        webhookHeader('webhook-id', 'The same on every retry of this entry to this subscription: deduplicate on it.'),
        webhookHeader('webhook-timestamp', 'Unix seconds when this attempt was signed.'),
        webhookHeader(
          'webhook-signature',
          '`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` with the subscription’s secret.',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef('ChangeEntry') } } },
      responses: {
        '2XX': { description: 'Received: the next entry follows.' },
        '4XX': { description: 'Refused (for example a signature that does not verify): retried on the schedule.' },
        '5XX': { description: 'Failed: retried on the schedule.' },
      },
    },
  },
  ping: {
    post: {
      operationId: 'receivePing',
      summary: 'A `webhook.ping` entry, sent when `POST /webhook_subscriptions/{id}/ping` asks for one',
      description:
        'Signed and sent like a change (same headers, same secret, same lane), once: its answer shows in the delivery log and is never retried.',
      tags: ['Webhooks'],
      security: [],
      parameters: [
        webhookHeader('webhook-id', 'The `webhook_id` the ping request answered.'),
        webhookHeader('webhook-timestamp', 'Unix seconds when this attempt was signed.'),
        webhookHeader(
          'webhook-signature',
          '`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` with the subscription’s secret.',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef('WebhookPingEntry') } } },
      responses: { '2XX': { description: 'Received.' }, default: { description: 'Logged; not retried.' } },
    },
  },
};

function response(
  description: string,
  content?: OpenApiResponse['content'],
  headers: Record<string, JsonObject> = {},
): OpenApiResponse {
  return {
    description,
    headers: { 'X-Request-Id': headerRef('XRequestId'), ...headers },
    ...(content ? { content } : {}),
  };
}

/** Every error response says which language its texts are in (contract §16). */
const errorHeaders = (headers: Record<string, JsonObject> = {}): Record<string, JsonObject> => ({
  'Content-Language': headerRef('ContentLanguage'),
  ...headers,
});

const errorResponse = (description: string, code: string, headers: Record<string, JsonObject> = {}): OpenApiResponse =>
  response(
    description,
    json(schemaRef('ErrorBody'), {
      error: code,
      message: description.replace(/ \(`.*$/, ''),
      request_id: 'c0ffee00-0000-4000-8000-000000000000',
    }),
    errorHeaders(headers),
  );

const pathParamsOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');

/** `create-employee-job` -> `createEmployeeJob` */
const operationIdOf = (name: string): string => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A schema's properties, including those of `allOf` parts (query schemas may be composed). */
function propertiesOf(schema: JsonObject): { properties: Record<string, JsonObject>; required: Set<string> } {
  const properties: Record<string, JsonObject> = {};
  const required = new Set<string>();
  const visit = (s: JsonObject): void => {
    Object.assign(properties, (s.properties as Record<string, JsonObject> | undefined) ?? {});
    for (const r of (s.required as string[] | undefined) ?? []) required.add(r);
    for (const part of (s.allOf as JsonObject[] | undefined) ?? []) visit(part);
  };
  visit(schema);
  return { properties, required };
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The schemas as the document shows them: `x-max-decimals: n` (the server's exact check) also as the standard
 * `multipleOf: 10^-n`, so a generic tool knows it too (not given to the server's ajv: in binary floating point
 * 0.3 is no multiple of 0.000001).
 */
export const documented = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
    v && typeof v === 'object' && typeof (v as JsonObject)['x-max-decimals'] === 'number'
      ? { ...v, multipleOf: Number(`1e-${(v as JsonObject)['x-max-decimals'] as number}`) }
      : v,
  ) as T;

function requireSchema(
  schemas: Record<string, object>,
  route: RouteDefinition,
  name: string | undefined,
): string | undefined {
  if (name === undefined) return undefined;
  if (!(name in schemas))
    throw new Error(`Route ${route.name} refers to schema ${name}, which is not in SCHEMAS (src/schemas/index.ts)`);
  return name;
}

function parametersOf(route: RouteDefinition, schemas: Record<string, object>): JsonObject[] {
  const parameters: JsonObject[] = pathParamsOf(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: 'Id of the record',
    schema: { type: 'string', minLength: 1 },
  }));
  const query = requireSchema(schemas, route, route.query);
  if (query) {
    const { properties, required } = propertiesOf(schemas[query] as JsonObject);
    for (const [name, prop] of Object.entries(properties)) {
      const schema = clone(prop);
      const description = typeof schema.description === 'string' ? schema.description : undefined;
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(description ? { description } : {}),
        schema,
      });
    }
  }
  parameters.push({
    name: 'Accept-Language',
    in: 'header',
    required: false,
    description:
      'Language of error texts: `en`, `de` or `it`, q-values allowed (`de-AT` counts as `de`); anything else is `en`. The answer names it in `Content-Language`.',
    schema: { type: 'string' },
    example: 'de-AT, it;q=0.8',
  });
  if (route.method === 'POST') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes the POST safe to retry: the same key with the same body within 24 hours returns the first response and creates nothing new; the same key with a different body answers 409.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
    });
  }
  if (route.method === 'PUT') {
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'The ETag last read; when the record changed since, the answer is 412 and nothing is written.',
      schema: { type: 'string' },
    });
  }
  return parameters;
}

function successOf(route: RouteDefinition, response_: string | undefined): [string, OpenApiResponse] {
  if (route.method === 'DELETE') return ['204', response('Deleted; the id answers 404 from now on')];
  if (route.responseMediaType) {
    return ['200', response(route.summary, { [route.responseMediaType]: { schema: { type: 'string' } } })];
  }
  if (!response_) {
    return [
      '200',
      response(route.summary, json({ type: 'object', description: 'An OpenAPI 3.1 document' }), {
        ETag: headerRef('ETag'),
      }),
    ];
  }
  if (route.list) {
    return [
      '200',
      response('A page of records (an empty `entries` past the last page)', json(schemaRef(`${response_}Page`)), {
        Link: headerRef('Link'),
      }),
    ];
  }
  if (route.accepted) {
    return [
      '202',
      response('Accepted: the work runs on; poll the Location', json(schemaRef(response_)), {
        Location: headerRef('Location'),
      }),
    ];
  }
  if (route.acts) {
    return ['200', response('The record as it is now', json(schemaRef(response_)), { ETag: headerRef('ETag') })];
  }
  if (route.method === 'POST') {
    return [
      '201',
      response('Created; an idempotent replay answers the same', json(schemaRef(response_)), {
        Location: headerRef('Location'),
        ETag: headerRef('ETag'),
      }),
    ];
  }
  if (route.etag === false) return ['200', response(route.summary, json(schemaRef(response_)))];
  return [
    '200',
    response(route.method === 'PUT' ? 'Updated record' : 'The record', json(schemaRef(response_)), {
      ETag: headerRef('ETag'),
    }),
  ];
}

/** API Gateway's own body when the stage throttle refuses a request before any function runs. */
const STAGE_THROTTLE_BODY = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };

/**
 * Stage throttling: API Gateway answers before any function runs, with its own
 * body and none of our headers (the only 429 of the routes without a token).
 */
const THROTTLED: OpenApiResponse = {
  description:
    'Too many requests: the deployment’s rate limit (API Gateway stage throttling) was exceeded; nothing was done. Retry with backoff.',
  content: { 'application/json': { schema: STAGE_THROTTLE_BODY, example: { message: 'Too Many Requests' } } },
};

/** Contract §18: over the token's or the business's limit (or, rarely, the stage throttle above). */
const RATE_LIMITED: OpenApiResponse = {
  description:
    'Over the rate limit of this token or of its business (`rate_limited`, `message` in the client\'s language): nothing was done, and an `Idempotency-Key` it carried is not used. `Retry-After` says when to send again; `RateLimit` shows `r=0` for the exhausted limit. Rarely the deployment\'s stage throttle answers instead, with API Gateway\'s body `{"message": "Too Many Requests"}` and none of these headers.',
  headers: {
    'X-Request-Id': headerRef('XRequestId'),
    'Content-Language': headerRef('ContentLanguage'),
    'Retry-After': {
      description: `Whole seconds until the exhausted limit's window admits again: 1 to W + 1, W being that limit's \`w\` (${WINDOW.min} to ${WINDOW.max}). Absent when the stage throttle answers.`,
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: WINDOW.max + 1 },
    },
  },
  content: {
    'application/json': {
      schema: { anyOf: [schemaRef('ErrorBody'), STAGE_THROTTLE_BODY] },
      example: {
        error: 'rate_limited',
        message:
          'This token exceeded its rate limit of 600 requests per 60 seconds; nothing was done, retry in 12 seconds',
        request_id: 'c0ffee00-0000-4000-8000-000000000000',
      },
    },
  },
};

function descriptionOf(route: RouteDefinition): string {
  const description = OPERATION_DESCRIPTIONS[route.name];
  if (!description) throw new Error(`Route ${route.name} has no description in OPERATION_DESCRIPTIONS`);
  return description;
}

/** The component schemas the document refers to, directly or through other components. */
function referencedOnly(components: Record<string, JsonObject>, paths: unknown): Record<string, JsonObject> {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
          const name = v.slice('#/components/schemas/'.length);
          if (!used.has(name)) {
            used.add(name);
            visit(components[name]);
          }
        } else visit(v);
      }
    }
  };
  visit(paths);
  return Object.fromEntries(Object.entries(components).filter(([name]) => used.has(name)));
}

function operationOf(route: RouteDefinition, schemas: Record<string, object>): OpenApiOperation {
  const request = requireSchema(schemas, route, route.request);
  const responseName = requireSchema(schemas, route, route.response);
  const hasBody = request !== undefined;
  const hasQuery = route.query !== undefined;
  const usesTable = route.access !== 'none' || route.auth;
  const responses: Record<string, OpenApiResponse> = {};

  const [successStatus, success] = successOf(route, responseName);
  responses[successStatus] = success;

  if (hasBody && hasQuery) {
    responses['400'] = response(
      'Body is not valid JSON or not a JSON object (`bad_request`), or query parameter errors',
      json({ oneOf: [schemaRef('ErrorBody'), schemaRef('FieldErrors')] }),
      errorHeaders(),
    );
  } else if (hasBody) {
    responses['400'] = errorResponse('Body is not valid JSON or not a JSON object (`bad_request`)', 'bad_request');
  } else if (hasQuery) {
    responses['400'] = response(
      'Query parameter errors, keyed by parameter name',
      json(schemaRef('FieldErrors'), { per_page: ['is invalid'] }),
      errorHeaders(),
    );
  }
  if (route.auth) {
    responses['401'] = errorResponse(
      'Missing, malformed, unknown, revoked or expired bearer token (`unauthorized`)',
      'unauthorized',
      {
        'WWW-Authenticate': headerRef('WWWAuthenticate'),
      },
    );
    responses['403'] = errorResponse(
      `This token lacks the scope ${scopesOf(route).join(' or ')}${route.orScopes ? ' (or the one of the type concerned)' : ''} (\`insufficient_scope\`); nothing was read or changed`,
      'insufficient_scope',
      { 'WWW-Authenticate': headerRef('WWWAuthenticate') },
    );
  }
  const extra = new Set<number>(route.extraStatuses ?? []);
  if (pathParamsOf(route.path).length > 0 || extra.has(404)) {
    const description =
      pathParamsOf(route.path).length > 0
        ? 'No record with this id in your business (`not_found`)'
        : 'A record the body refers to does not exist in your business (`not_found`); the message names the id';
    responses['404'] = errorResponse(description, 'not_found');
  }
  if (!route.auth) {
    responses['406'] = errorResponse(
      'The `Accept` header excludes the media type of this resource (`not_acceptable`)',
      'not_acceptable',
    );
  }
  if (route.method === 'POST') {
    responses['409'] = errorResponse(
      'This Idempotency-Key was already used for another request: another method, path or body (`idempotency_key_reused`)',
      'idempotency_key_reused',
    );
  }
  if (route.method === 'PUT') {
    responses['412'] = errorResponse(
      'If-Match does not match the current ETag; nothing was written (`precondition_failed`)',
      'precondition_failed',
    );
  }
  if (hasBody) {
    responses['413'] = errorResponse(
      `Body larger than ${MAX_BODY_MIB} MiB (\`payload_too_large\`)`,
      'payload_too_large',
    );
    responses['415'] = errorResponse(
      'Body not sent as `Content-Type: application/json` (`unsupported_media_type`)',
      'unsupported_media_type',
    );
    responses['422'] = response(
      'Field errors: every failing field at once, Rails wording; nothing was written',
      json(schemaRef('FieldErrors'), { last_name: ["can't be blank"], email: ['is invalid'] }),
      errorHeaders(),
    );
  }
  for (const status of extra) {
    const key = String(status);
    responses[key] ??= EXTRA_STATUS_RESPONSES[key]?.(route) ?? errorResponse(`Error ${key}`, 'error');
  }
  responses['429'] = route.auth ? RATE_LIMITED : THROTTLED;
  responses['500'] = errorResponse(
    'Unexpected error, logged; never a stack trace (`internal_error`)',
    'internal_error',
  );
  if (usesTable) {
    responses['503'] = errorResponse(
      'The data store is throttled or unavailable; retry later (`service_unavailable`)',
      'service_unavailable',
      {
        'Retry-After': headerRef('RetryAfter'),
      },
    );
  }

  // Contract §18: every answer to a request with a valid token carries the RateLimit fields (not a 401).
  if (route.auth)
    for (const [status, r] of Object.entries(responses))
      if (status !== '401')
        responses[status] = {
          ...r,
          headers: {
            ...r.headers,
            'RateLimit-Policy': headerRef('RateLimitPolicy'),
            RateLimit: headerRef('RateLimit'),
          },
        };

  const parameters = parametersOf(route, schemas);
  return {
    operationId: operationIdOf(route.name),
    summary: route.summary,
    description: route.auth
      ? `${descriptionOf(route)}\n\nScope: ${scopesOf(route)
          .map((s) => `\`${s}\``)
          .join(' or ')}.`
      : descriptionOf(route),
    tags: [route.tag],
    // OpenAPI 3.1 lets a requirement of any scheme list the roles (here: token scopes) it needs.
    // Alternatives: any one of the route's scopes admits the token.
    security: scopesOf(route).map((scope) => ({ [BEARER_SCHEME]: [scope] })),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(request
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaRef(request) } } } }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** The document for these routes and schemas (defaults: the deployed ones). */
export function buildOpenApiDocument(
  routes: readonly RouteDefinition[] = ROUTES,
  schemas: Record<string, object> = SCHEMAS,
): OpenApiDocument {
  const componentSchemas: Record<string, JsonObject> = documented(schemas) as Record<string, JsonObject>;
  for (const required of ['ErrorBody', 'FieldErrors']) {
    if (!(required in componentSchemas)) throw new Error(`SCHEMAS must contain ${required}`);
  }
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const operations = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (operations[method]) throw new Error(`Two routes for ${route.method} ${route.path}`);
    operations[method] = operationOf(route, schemas);
    if (route.list && route.response) {
      const pageName = `${route.response}Page`;
      componentSchemas[pageName] ??= {
        ...(pageEnvelope(schemaRef(route.response)) as JsonObject),
        description: `A page of ${route.response} records`,
      };
    }
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({
    name,
    ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'HR API',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: { name: 'The operators of this deployment (see the README of the service)' },
      license: {
        name: 'Proprietary (UNLICENSED): use only under your agreement with the operator',
        identifier: 'LicenseRef-Proprietary',
      },
    },
    servers: [{ url: '/', description: 'This deployment' }],
    security: [{ [BEARER_SCHEME]: [] }],
    tags,
    paths,
    webhooks: WEBHOOKS,
    components: {
      // Query schemas appear as parameters; a component nothing refers to is noise for tools.
      schemas: referencedOnly(componentSchemas, { paths, webhooks: WEBHOOKS }),
      headers: clone(HEADERS),
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'API token of one business with scopes (`npm run admin -- token create BUSINESS_ID --scopes ...` prints one). ' +
            'Each operation lists the scope it needs.',
        },
      },
    },
  };
}
