/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON the tests inspect freely */
import type { EventBridgeEvent, S3Event } from 'aws-lambda';
import { handler as checkAttachment } from '../../functions/check-attachment';

/**
 * The client's upload step exactly as the API describes it (contract §19):
 * POST multipart/form-data to `upload.url`, every pair of `upload.fields`,
 * then the file as the part `file`. Answers S3's status.
 */
export async function uploadAs(upload: any, bytes: Uint8Array, fileName = 'file'): Promise<number> {
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields as Record<string, string>)) form.append(name, value);
  form.append('file', new Blob([bytes]), fileName);
  const res = await fetch(upload.url, { method: 'POST', body: form });
  await res.arrayBuffer();
  return res.status;
}

/** The object-created notification S3 sends for an upload, as the bucket's event delivers it (key URL-encoded). */
export const objectCreatedEvent = (key: string, size: number): S3Event =>
  ({
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        eventName: 'ObjectCreated:Post',
        s3: {
          bucket: { name: process.env.ATTACHMENTS_BUCKET },
          object: { key: encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+'), size },
        },
      },
    ],
  }) as unknown as S3Event;

/**
 * Upload, then the check function on the event S3 would send (in the test
 * process: the shared local S3 server's own events go to the process that
 * started it, jest's global setup; `npm start` wires them, test/integration/local-stack.test.ts).
 */
export async function uploadAndCheck(upload: any, bytes: Uint8Array): Promise<void> {
  const status = await uploadAs(upload, bytes);
  if (status !== 204) throw new Error(`upload answered ${status}`);
  await checkAttachment(objectCreatedEvent(upload.fields.key as string, bytes.length));
}

/**
 * GuardDuty Malware Protection for S3's scan-result event for one object, as
 * EventBridge delivers it to the check function (the stack's malwareScan setting).
 */
export const scanResultEvent = (
  key: string,
  scanResultStatus: 'NO_THREATS_FOUND' | 'THREATS_FOUND' | 'UNSUPPORTED' | 'ACCESS_DENIED' | 'FAILED',
  bucketName = process.env.ATTACHMENTS_BUCKET,
): EventBridgeEvent<'GuardDuty Malware Protection Object Scan Result', unknown> => ({
  version: '0',
  id: '72c7d362-737a-6dce-fc78-9e27a0171419',
  'detail-type': 'GuardDuty Malware Protection Object Scan Result',
  source: 'aws.guardduty',
  account: '111122223333',
  time: new Date().toISOString(),
  region: 'eu-central-1',
  resources: ['arn:aws:guardduty:eu-central-1:111122223333:malware-protection-plan/b4c7f464ab3a4EXAMPLE'],
  detail: {
    schemaVersion: '1.0',
    scanStatus: scanResultStatus === 'FAILED' || scanResultStatus === 'ACCESS_DENIED' ? 'FAILED' : 'COMPLETED',
    resourceType: 'S3_OBJECT',
    s3ObjectDetails: { bucketName, objectKey: key, eTag: 'ASIAI44QH8DHBEXAMPLE', versionId: null, s3Throttled: false },
    scanResultDetails: {
      scanResultStatus,
      threats: scanResultStatus === 'THREATS_FOUND' ? [{ name: 'EICAR-Test-File (not a virus)' }] : null,
    },
  },
});
