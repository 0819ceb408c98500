/** GuardDuty's scan result read from its EventBridge event, and what it means for an attachment (docs/deploy.md). */
import { scanResultOf, scanVerdictOf } from '../../src/domain/attachments';

describe('scanVerdictOf', () => {
  test.each([
    ['NO_THREATS_FOUND', { clean: true }],
    ['THREATS_FOUND', { clean: false, reason: 'malware_detected' }],
    ['UNSUPPORTED', { clean: false, reason: 'scan_failed' }],
    ['ACCESS_DENIED', { clean: false, reason: 'scan_failed' }],
    ['FAILED', { clean: false, reason: 'scan_failed' }],
    ['SOMETHING_NEW', { clean: false, reason: 'scan_failed' }],
    [undefined, { clean: false, reason: 'scan_failed' }],
  ])('%s: %j (only a clean result clears a file)', (status, verdict) => {
    expect(scanVerdictOf(status)).toEqual(verdict);
  });
});

describe('scanResultOf', () => {
  test('the bucket, key and result status of the scanned object', () => {
    expect(
      scanResultOf({
        scanStatus: 'COMPLETED',
        s3ObjectDetails: { bucketName: 'b', objectKey: 'uploads/x/y/att_1', eTag: 'e' },
        scanResultDetails: { scanResultStatus: 'THREATS_FOUND', threats: [{ name: 'EICAR' }] },
      }),
    ).toEqual({ bucket: 'b', key: 'uploads/x/y/att_1', status: 'THREATS_FOUND' });
  });

  test('a result without status keeps the object (and so fails closed in scanVerdictOf)', () => {
    expect(scanResultOf({ s3ObjectDetails: { bucketName: 'b', objectKey: 'k' } })).toEqual({
      bucket: 'b',
      key: 'k',
      status: undefined,
    });
  });

  test.each([
    null,
    undefined,
    'text',
    {},
    { s3ObjectDetails: { bucketName: 'b' } },
    { s3ObjectDetails: { objectKey: 1 } },
  ])('no object named: undefined (%j)', (detail) => {
    expect(scanResultOf(detail)).toBeUndefined();
  });
});
