/** What the post-upload check's function (functions/check-attachment.ts) reads of a malware scan's result event. */
export { SCAN_RESULT_DETAIL_TYPE, scanResultOf } from '../domain/attachments';
