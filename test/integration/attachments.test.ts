/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON the tests inspect freely */
/**
 * Application attachments (contract §19) against the local S3 server: the
 * presigned upload, the post-upload check (size and signature), downloads,
 * validation, tenancy, scopes, delete, the feed entries, and erasure with
 * the application (contract §17): a scan of the table and a listing of the
 * bucket find nothing of the applicant.
 */
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3 } from '../../src/data/s3/client';
import { createToken } from '../../src/data/token-store';
import { API, countCalls, startApi, type TestApi } from '../support/harness';
import { scanAll } from '../support/table-scan';
import { asRetentionJob, runRetention } from '../../src/services/retention';
import { handler as checkAttachment } from '../../functions/check-attachment';
import { logger } from '../../src/http/logger';
import { objectCreatedEvent, scanResultEvent, uploadAndCheck, uploadAs } from '../support/attachment-upload';

const fixture = (id: string) => ({
  business: { id, name: `${id} Ltd`, locales: ['en', 'de'], timezone: 'Europe/Rome' },
  application_statuses: [{ id: 'new', name_en: 'New', default: true }],
  job_openings: [{ id: 'cook', name_en: 'Cook' }],
});

const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const TEXT = Buffer.from('Anna Huber\nKöchin, 10 Jahre Erfahrung\n');

let api: TestApi;
let token: string;
let theirToken: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.provision(fixture('attachco'));
  theirToken = await api.provision(fixture('otherco'));
}, 60_000);
afterAll(() => api.close());

const call = (method: string, path: string, body?: unknown, as = token) =>
  api.request(method, `${API}${path}`, { token: as, ...(body !== undefined ? { body } : {}) });

async function newApplication(name = 'Huber'): Promise<string> {
  const res = await call('POST', '/applications', {
    first_name: 'Anna',
    last_name: name,
    email: 'anna.huber@example.com',
    accept_terms_and_conditions: true,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const declare = (applicationId: string, file_name: string, content_type: string, size: number) =>
  call('POST', `/applications/${applicationId}/attachments`, { file_name, content_type, size });

const objectExists = async (key: string): Promise<boolean> =>
  s3()
    .send(new HeadObjectCommand({ Bucket: process.env.ATTACHMENTS_BUCKET!, Key: key }))
    .then(() => true)
    .catch(() => false);

async function feed(types: string): Promise<any[]> {
  const res = await call('GET', `/changes?types=${types}&limit=500`);
  expect(res.status).toBe(200);
  return res.body.entries;
}

describe('upload, check, download', () => {
  it('a PDF goes pending -> available; its download_url answers the exact bytes as an attachment of the declared type', async () => {
    const app = await newApplication();
    const created = await declare(app, 'Lebenslauf Anna.pdf', 'application/pdf', PDF.length);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${API}/applications/${app}/attachments/${created.body.id}`);
    expect(created.body).toMatchObject({
      application_id: app,
      file_name: 'Lebenslauf Anna.pdf',
      content_type: 'application/pdf',
      size: PDF.length,
      status: 'pending',
      upload: { method: 'POST', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) },
    });
    const expiresIn = Date.parse(created.body.upload.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60 * 1000);
    // The policy fixes key, size and type (enforced by S3, and locally by the gate: test/integration/local-s3.test.ts).
    const policy = JSON.parse(Buffer.from(created.body.upload.fields.Policy, 'base64').toString('utf8'));
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', PDF.length, PDF.length],
        ['eq', '$Content-Type', 'application/pdf'],
        { key: created.body.upload.fields.key },
      ]),
    );
    expect(Date.parse(policy.expiration) - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);

    const pending = await call('GET', `/applications/${app}/attachments/${created.body.id}`);
    expect(pending.body.status).toBe('pending');
    expect(pending.body).not.toHaveProperty('download_url');

    await uploadAndCheck(created.body.upload, PDF);
    const shown = await call('GET', `/applications/${app}/attachments/${created.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ status: 'available', download_url: expect.any(String) });
    const url = new URL(shown.body.download_url);
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(300);
    const download = await fetch(shown.body.download_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="Lebenslauf Anna.pdf"; filename*=UTF-8''Lebenslauf%20Anna.pdf`,
    );
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PDF);

    const [entry] = (await feed('attachment.available')).filter((e) => e.id === created.body.id);
    // Contract §20: the check writes as a system job, outside any request.
    expect(entry).toMatchObject({ actor: { type: 'system', name: 'attachment_check' }, request_id: null });
    expect(entry.data).toEqual({
      id: created.body.id,
      application_id: app,
      file_name: 'Lebenslauf Anna.pdf',
      content_type: 'application/pdf',
      size: PDF.length,
      status: 'available',
      created_at: created.body.created_at,
      updated_at: shown.body.updated_at,
    });
  });

  it('PNG and UTF-8 text pass by their content; a second check of the same object changes nothing', async () => {
    const app = await newApplication();
    const png = await declare(app, 'photo.png', 'image/png', PNG.length);
    const txt = await declare(app, 'cover.txt', 'text/plain', TEXT.length);
    await uploadAndCheck(png.body.upload, PNG);
    await uploadAndCheck(txt.body.upload, TEXT);
    await uploadAndCheck(txt.body.upload, TEXT);
    const list = await call('GET', `/applications/${app}/attachments`);
    expect(list.body.entries.map((e: any) => [e.file_name, e.status])).toEqual([
      ['photo.png', 'available'],
      ['cover.txt', 'available'],
    ]);
    expect((await feed('attachment.available')).filter((e) => e.id === txt.body.id)).toHaveLength(1);
  });
});

describe('the check rejects what S3 itself would have refused, and what is not what it claims', () => {
  it('a file of another size: S3 refuses the upload (403); written past the policy, the check rejects it (size_mismatch)', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length + 10);
    expect(await uploadAs(created.body.upload, PDF)).toBe(403);
    expect(await objectExists(created.body.upload.fields.key)).toBe(false);
    // Bytes the policy never admitted (a writer with the service's own key): the check still measures them.
    await s3().send(
      new PutObjectCommand({ Bucket: process.env.ATTACHMENTS_BUCKET!, Key: created.body.upload.fields.key, Body: PDF }),
    );
    await checkAttachment(objectCreatedEvent(created.body.upload.fields.key, PDF.length));
    const shown = await call('GET', `/applications/${app}/attachments/${created.body.id}`);
    expect(shown.body).toMatchObject({ status: 'rejected', rejection_reason: 'size_mismatch' });
    expect(shown.body).not.toHaveProperty('download_url');
    expect(await objectExists(created.body.upload.fields.key)).toBe(false);
    const [entry] = (await feed('attachment.rejected')).filter((e) => e.id === created.body.id);
    expect(entry.data).toMatchObject({ status: 'rejected', rejection_reason: 'size_mismatch' });
  });

  it('content of another type (a PDF declared as PNG, HTML or NUL bytes declared as text): type_mismatch', async () => {
    const app = await newApplication();
    const asPng = await declare(app, 'x.png', 'image/png', PDF.length);
    const nul = Buffer.from('abc\u0000def');
    const asText = await declare(app, 'x.txt', 'text/plain', nul.length);
    const latin1 = Buffer.from([0x4b, 0xf6, 0x63, 0x68, 0x69, 0x6e]); // "Köchin" in Latin-1: not UTF-8
    const asText2 = await declare(app, 'y.txt', 'text/plain', latin1.length);
    const html = Buffer.from('<!doctype html><script>alert(1)</script>');
    const asPdf = await declare(app, 'z.pdf', 'application/pdf', html.length);
    await uploadAndCheck(asPng.body.upload, PDF);
    await uploadAndCheck(asText.body.upload, nul);
    await uploadAndCheck(asText2.body.upload, latin1);
    await uploadAndCheck(asPdf.body.upload, html);
    const list = await call('GET', `/applications/${app}/attachments`);
    expect(list.body.entries.map((e: any) => [e.status, e.rejection_reason])).toEqual(
      Array(4).fill(['rejected', 'type_mismatch']),
    );
    for (const c of [asPng, asText, asText2, asPdf]) expect(await objectExists(c.body.upload.fields.key)).toBe(false);
  });

  it('an object under a key no attachment has (never handed out, or erased since) loses its bytes', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    expect((await call('DELETE', `/applications/${app}/attachments/${created.body.id}`)).status).toBe(204);
    // The presigned POST outlives the record: what arrives now is checked and deleted.
    await uploadAndCheck(created.body.upload, PDF);
    expect(await objectExists(created.body.upload.fields.key)).toBe(false);
  });
});

describe('what an attacker tried on the local stack (issue 41), through the local S3 gate', () => {
  const show = (app: string, id: string) => call('GET', `/applications/${app}/attachments/${id}`);

  it("a form whose key is changed into another business's upload or into a stored key: 403, nothing written", async () => {
    const victimApp = (
      await call(
        'POST',
        '/applications',
        { first_name: 'V', last_name: 'Ictim', email: 'v@example.com', accept_terms_and_conditions: true },
        theirToken,
      )
    ).body.id as string;
    const victim = await call(
      'POST',
      `/applications/${victimApp}/attachments`,
      { file_name: 'cv.pdf', content_type: 'application/pdf', size: PDF.length },
      theirToken,
    );
    const app = await newApplication();
    const mine = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    await uploadAndCheck(mine.body.upload, PDF);
    const stored = (mine.body.upload.fields.key as string).replace(/^uploads\//, 'attachments/');
    const evil = await declare(app, 'evil.pdf', 'application/pdf', PDF.length);
    const forged = Buffer.from(PDF.toString('latin1').replace('Catalog', 'Catalug'), 'latin1');
    for (const key of [victim.body.upload.fields.key, stored])
      expect(await uploadAs({ ...evil.body.upload, fields: { ...evil.body.upload.fields, key } }, forged)).toBe(403);
    expect(await objectExists(victim.body.upload.fields.key)).toBe(false);
    expect((await show(victimApp, victim.body.id)).status).toBe(404); // another business's, to us
    const theirs = await call('GET', `/applications/${victimApp}/attachments/${victim.body.id}`, undefined, theirToken);
    expect(theirs.body.status).toBe('pending');
    const download = await fetch((await show(app, mine.body.id)).body.download_url);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PDF);
  });

  it('a file name with a lone surrogate: 422 is invalid, nothing stored (no record left pending)', async () => {
    const app = await newApplication();
    const res = await declare(app, '\udc00x.txt', 'text/plain', 5);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ file_name: ['is invalid'] });
    expect((await call('GET', `/applications/${app}/attachments`)).body.total_entries).toBe(0);
  });

  it('bytes uploaded again with an old form after available or rejected are deleted, never checked or served', async () => {
    const app = await newApplication();
    const good = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    const bad = await declare(app, 'photo.png', 'image/png', PDF.length);
    await uploadAndCheck(good.body.upload, PDF);
    await uploadAndCheck(bad.body.upload, PDF);
    const forged = Buffer.from(PDF.toString('latin1').replace('Catalog', 'Catalug'), 'latin1');
    for (const created of [good, bad]) {
      // The form is still within its 15 minutes: S3 stores the bytes; the check deletes them on arrival.
      await uploadAndCheck(created.body.upload, forged);
      expect(await objectExists(created.body.upload.fields.key)).toBe(false);
    }
    expect((await show(app, good.body.id)).body.status).toBe('available');
    expect((await show(app, bad.body.id)).body).toMatchObject({
      status: 'rejected',
      rejection_reason: 'type_mismatch',
    });
    const download = await fetch((await show(app, good.body.id)).body.download_url);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PDF);
    expect(
      (await feed('attachment.available,attachment.rejected')).filter((e) =>
        [good.body.id, bad.body.id].includes(e.id),
      ),
    ).toHaveLength(2);
  });

  it('a check that fails is tried again; one that keeps failing is logged at ERROR, and the redelivery settles it', async () => {
    const app = await newApplication();
    const once = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    const always = await declare(app, 'cv2.pdf', 'application/pdf', PDF.length);
    for (const c of [once, always]) expect(await uploadAs(c.body.upload, PDF)).toBe(204);
    let failures = 1;
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'HeadObjectCommand' && failures-- > 0)
          throw Object.assign(new Error('injected S3 failure'), { name: 'InternalError' });
        return next(args);
      },
      { step: 'initialize', name: 'check-fault' },
    );
    const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      await checkAttachment(objectCreatedEvent(once.body.upload.fields.key, PDF.length));
      expect((await show(app, once.body.id)).body.status).toBe('available');
      expect(errors).not.toHaveBeenCalled();

      failures = Infinity;
      const event = objectCreatedEvent(always.body.upload.fields.key, PDF.length);
      await expect(checkAttachment(event)).rejects.toThrow('injected S3 failure');
      expect(errors).toHaveBeenCalledWith(
        expect.stringContaining('attachment check failed'),
        expect.objectContaining({ key: always.body.upload.fields.key, attempts: 3 }),
      );
      expect((await show(app, always.body.id)).body.status).toBe('pending');
      failures = 0;
      await checkAttachment(event);
      expect((await show(app, always.body.id)).body.status).toBe('available');
    } finally {
      s3().middlewareStack.remove('check-fault');
      errors.mockRestore();
    }
  });

  it('a download_url is pinned to the checked object: bytes changed under its key afterwards are never served', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    await uploadAndCheck(created.body.upload, PDF);
    const url = (await show(app, created.body.id)).body.download_url as string;
    expect(new URL(url).searchParams.get('If-Match')).toMatch(/^".+"$/);
    expect((await fetch(url)).status).toBe(200);
    const stored = (created.body.upload.fields.key as string).replace(/^uploads\//, 'attachments/');
    await s3().send(new PutObjectCommand({ Bucket: process.env.ATTACHMENTS_BUCKET!, Key: stored, Body: 'changed' }));
    for (const u of [url, (await show(app, created.body.id)).body.download_url]) {
      const res = await fetch(u);
      expect(res.status).toBe(412);
      expect(await res.text()).not.toContain('changed');
    }
  });
});

describe('malware scanning (the stack setting malwareScan: MALWARE_SCAN=true)', () => {
  beforeEach(() => {
    process.env.MALWARE_SCAN = 'true';
  });
  afterEach(() => {
    delete process.env.MALWARE_SCAN;
  });

  const show = (app: string, id: string) => call('GET', `/applications/${app}/attachments/${id}`);
  const entriesOf = async (id: string) =>
    (await feed('attachment.available,attachment.rejected')).filter((e) => e.id === id);

  it('a file that passes stays pending until NO_THREATS_FOUND makes it available', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    const key = created.body.upload.fields.key as string;
    await uploadAndCheck(created.body.upload, PDF);
    const held = await show(app, created.body.id);
    expect(held.body).toMatchObject({ status: 'pending', updated_at: created.body.updated_at });
    expect(held.body).not.toHaveProperty('download_url');
    expect(await objectExists(key)).toBe(true);
    expect(await entriesOf(created.body.id)).toEqual([]);

    await checkAttachment(scanResultEvent(key, 'NO_THREATS_FOUND'));
    const shown = await show(app, created.body.id);
    expect(shown.body).toMatchObject({ status: 'available', download_url: expect.any(String) });
    const download = await fetch(shown.body.download_url);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PDF);
    expect(await objectExists(key)).toBe(false);
    expect((await entriesOf(created.body.id)).map((e) => e.type)).toEqual(['attachment.available']);
  });

  it('THREATS_FOUND: rejected (malware_detected), the bytes deleted, attachment.rejected in the feed', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    const key = created.body.upload.fields.key as string;
    await uploadAndCheck(created.body.upload, PDF);
    await checkAttachment(scanResultEvent(key, 'THREATS_FOUND'));
    const shown = await show(app, created.body.id);
    expect(shown.body).toMatchObject({ status: 'rejected', rejection_reason: 'malware_detected' });
    expect(shown.body).not.toHaveProperty('download_url');
    expect(await objectExists(key)).toBe(false);
    expect(await objectExists(key.replace(/^uploads\//, 'attachments/'))).toBe(false);
    const entries = await entriesOf(created.body.id);
    expect(entries.map((e) => [e.type, e.data.rejection_reason])).toEqual([
      ['attachment.rejected', 'malware_detected'],
    ]);
    // A repeated delivery of the same result changes nothing.
    await checkAttachment(scanResultEvent(key, 'NO_THREATS_FOUND'));
    expect((await show(app, created.body.id)).body.status).toBe('rejected');
    expect(await entriesOf(created.body.id)).toHaveLength(1);
  });

  it('a scan that cannot judge the file (UNSUPPORTED) rejects it as scan_failed', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    await uploadAndCheck(created.body.upload, PDF);
    await checkAttachment(scanResultEvent(created.body.upload.fields.key, 'UNSUPPORTED'));
    expect((await show(app, created.body.id)).body).toMatchObject({
      status: 'rejected',
      rejection_reason: 'scan_failed',
    });
  });

  it('the check still rejects on size and type without waiting; the later scan result changes nothing', async () => {
    const app = await newApplication();
    const created = await declare(app, 'photo.png', 'image/png', PDF.length);
    await uploadAndCheck(created.body.upload, PDF);
    expect((await show(app, created.body.id)).body).toMatchObject({
      status: 'rejected',
      rejection_reason: 'type_mismatch',
    });
    await checkAttachment(scanResultEvent(created.body.upload.fields.key, 'NO_THREATS_FOUND'));
    expect((await show(app, created.body.id)).body.rejection_reason).toBe('type_mismatch');
    expect(await entriesOf(created.body.id)).toHaveLength(1);
  });

  it('a clean result before the check runs the check itself: available, and the late check leaves it so', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cover.txt', 'text/plain', TEXT.length);
    const key = created.body.upload.fields.key as string;
    expect(await uploadAs(created.body.upload, TEXT)).toBe(204);
    await checkAttachment(scanResultEvent(key, 'NO_THREATS_FOUND'));
    expect((await show(app, created.body.id)).body.status).toBe('available');
    await uploadAndCheck(created.body.upload, TEXT);
    expect((await show(app, created.body.id)).body.status).toBe('available');
    expect(await entriesOf(created.body.id)).toHaveLength(1);
  });

  it('a clean result for a file of the wrong type rejects it (type_mismatch) even before the check', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cover.txt', 'text/plain', 4);
    expect(await uploadAs(created.body.upload, Buffer.from([0, 1, 2, 3]))).toBe(204);
    await checkAttachment(scanResultEvent(created.body.upload.fields.key, 'NO_THREATS_FOUND'));
    expect((await show(app, created.body.id)).body).toMatchObject({
      status: 'rejected',
      rejection_reason: 'type_mismatch',
    });
  });

  it('a result for a deleted attachment, an unknown key or another bucket is ignored', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    const key = created.body.upload.fields.key as string;
    await uploadAndCheck(created.body.upload, PDF);
    expect((await call('DELETE', `/applications/${app}/attachments/${created.body.id}`)).status).toBe(204);
    const before = (await feed('attachment.available,attachment.rejected')).length;

    await checkAttachment(scanResultEvent(key, 'THREATS_FOUND'));
    await checkAttachment(scanResultEvent(key, 'NO_THREATS_FOUND'));
    await checkAttachment(scanResultEvent('uploads/not-a-key-we-handed-out', 'THREATS_FOUND'));
    await checkAttachment(scanResultEvent('attachments/elsewhere', 'NO_THREATS_FOUND'));
    expect((await show(app, created.body.id)).status).toBe(404);

    const other = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    await uploadAndCheck(other.body.upload, PDF);
    await checkAttachment(scanResultEvent(other.body.upload.fields.key, 'THREATS_FOUND', 'someone-elses-bucket'));
    expect((await show(app, other.body.id)).body.status).toBe('pending');
    expect(await objectExists(other.body.upload.fields.key)).toBe(true);
    expect((await feed('attachment.available,attachment.rejected')).length).toBe(before);
  });
});

describe('bad metadata: 422 with every failing field', () => {
  it('type outside the list, size out of range, a path or control characters in the name', async () => {
    const app = await newApplication();
    const res = await declare(app, '../etc/passwd', 'text/html', 0);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      file_name: ['is invalid'],
      content_type: ['is not included in the list'],
      size: ['is invalid'],
    });
    for (const [name, message] of [
      ['a\\b.pdf', 'is invalid'],
      ['cv\u0007.pdf', 'is invalid'],
      ['cv\u0085.pdf', 'is invalid'],
      ['x'.repeat(256), 'is invalid'],
      ['   ', "can't be blank"],
    ] as const)
      expect((await declare(app, name, 'application/pdf', 10)).body).toEqual({ file_name: [message] });
    expect((await declare(app, 'cv.pdf', 'application/pdf', 20 * 1024 * 1024 + 1)).body).toEqual({
      size: ['is invalid'],
    });
    expect((await declare(app, 'cv.pdf', 'application/pdf', 1.5)).body).toEqual({ size: ['is invalid'] });
    expect((await call('POST', `/applications/${app}/attachments`, { nope: 1 })).body).toEqual({
      file_name: ["can't be blank"],
      content_type: ["can't be blank"],
      size: ["can't be blank"],
      nope: ['is not a known field'],
    });
    expect((await declare(app, 'ü'.repeat(255), 'application/pdf', 20 * 1024 * 1024)).status).toBe(201);
    // Nothing of the refused ones was stored.
    expect((await call('GET', `/applications/${app}/attachments`)).body.total_entries).toBe(1);
  });

  it('at most 20 per application: the 21st is a 422 and stores nothing; a delete makes room', async () => {
    const app = await newApplication();
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => declare(app, `doc${i}.txt`, 'text/plain', 5)));
    expect(made.map((r) => r.status)).toEqual(Array(20).fill(201));
    const over = await declare(app, 'doc20.txt', 'text/plain', 5);
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ attachments: ['must be less than or equal to 20'] });
    const all = (await call('GET', `/applications/${app}/attachments?per_page=100`)).body.entries as any[];
    expect(all.map((e) => e.id).sort()).toEqual(made.map((r) => r.body.id).sort());
    // Oldest first (created_at, then id): page 3 of 7 is the last six.
    const ordered = [...all].sort((a, b) => (a.created_at + a.id < b.created_at + b.id ? -1 : 1));
    expect(all).toEqual(ordered);
    const list = await call('GET', `/applications/${app}/attachments?per_page=7&page=3`);
    expect(list.body).toMatchObject({ current_page: 3, per_page: 7, total_entries: 20 });
    expect(list.body.entries).toEqual(all.slice(14));
    expect((await call('DELETE', `/applications/${app}/attachments/${made[3]!.body.id}`)).status).toBe(204);
    expect((await declare(app, 'doc20.txt', 'text/plain', 5)).status).toBe(201);
  });
});

describe('tenancy and scopes', () => {
  it("another business's application and attachment are 404 on every route; an unknown application too", async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    const paths = [`/applications/${app}/attachments`, `/applications/${app}/attachments/${created.body.id}`];
    expect((await call('GET', paths[0]!, undefined, theirToken)).status).toBe(404);
    expect((await call('GET', paths[1]!, undefined, theirToken)).status).toBe(404);
    expect((await call('DELETE', paths[1]!, undefined, theirToken)).status).toBe(404);
    const post = await call(
      'POST',
      paths[0]!,
      { file_name: 'x.pdf', content_type: 'application/pdf', size: 9 },
      theirToken,
    );
    expect(post.status).toBe(404);
    expect((await call('GET', '/applications/nope/attachments')).status).toBe(404);
    expect((await declare('nope', 'x.pdf', 'application/pdf', 9)).status).toBe(404);
    expect((await call('GET', `/applications/${app}/attachments/att_00000000000000000000`)).status).toBe(404);
    // Still there for its owner.
    expect((await call('GET', paths[1]!)).status).toBe(200);
  });

  it('applications:read lists and shows but cannot add or delete; applications:write adds but cannot read', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    const reader = (await createToken('attachco', { name: 'r', scopes: ['applications:read'] })).token;
    const writer = (await createToken('attachco', { name: 'w', scopes: ['applications:write'] })).token;
    const one = `/applications/${app}/attachments/${created.body.id}`;
    expect((await call('GET', one, undefined, reader)).status).toBe(200);
    expect((await call('GET', `/applications/${app}/attachments`, undefined, reader)).status).toBe(200);
    const body = { file_name: 'x.pdf', content_type: 'application/pdf', size: 9 };
    const refused = await call('POST', `/applications/${app}/attachments`, body, reader);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('scope="applications:write"');
    expect((await call('DELETE', one, undefined, reader)).status).toBe(403);
    expect((await call('GET', one, undefined, writer)).status).toBe(403);
    expect((await call('POST', `/applications/${app}/attachments`, body, writer)).status).toBe(201);
  });
});

describe('delete and erasure', () => {
  it('DELETE of an attachment: 204, bytes gone, a second DELETE 404, attachment.deleted in the feed', async () => {
    const app = await newApplication();
    const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
    await uploadAndCheck(created.body.upload, PDF);
    const url = (await call('GET', `/applications/${app}/attachments/${created.body.id}`)).body.download_url;
    const path = `/applications/${app}/attachments/${created.body.id}`;
    expect((await call('DELETE', path)).status).toBe(204);
    expect((await fetch(url)).status).toBe(404);
    expect((await call('GET', path)).status).toBe(404);
    expect((await call('DELETE', path)).status).toBe(404);
    const entries = (await feed('attachment.available,attachment.deleted')).filter((e) => e.id === created.body.id);
    expect(entries.map((e) => [e.type, e.data === null])).toEqual([
      ['attachment.available', false],
      ['attachment.deleted', true],
    ]);
  });

  it("an application's erasure removes its attachments' bytes and records first; nothing of the applicant stays", async () => {
    const name = `Zyxwv${Date.now()}`;
    const app = await newApplication(name);
    const fileName = `${name}-Lebenslauf.pdf`;
    const available = await declare(app, fileName, 'application/pdf', PDF.length);
    const rejected = await declare(app, `${name}-photo.png`, 'image/png', PDF.length);
    const pending = await declare(app, `${name}-pending.txt`, 'text/plain', 4);
    await uploadAndCheck(available.body.upload, PDF);
    await uploadAndCheck(rejected.body.upload, PDF);
    const url = (await call('GET', `/applications/${app}/attachments/${available.body.id}`)).body.download_url;
    expect((await fetch(url)).status).toBe(200);
    // Before: the checked copy and the pending upload are stored.
    const before = await s3().send(
      new ListObjectsV2Command({ Bucket: process.env.ATTACHMENTS_BUCKET!, Prefix: 'attachments/attachco/' + app }),
    );
    expect(before.Contents?.length).toBe(1);
    expect(await uploadAs(pending.body.upload, Buffer.from('abcd'))).toBe(204);
    // An idempotent create keeps its response (with the file name) for a replay: erased too.
    const replayable = await api.request('POST', `${API}/applications/${app}/attachments`, {
      token,
      body: { file_name: `${name}-keyed.pdf`, content_type: 'application/pdf', size: 9 },
      headers: { 'idempotency-key': `k-${Date.now()}` },
    });
    expect(replayable.status).toBe(201);

    const { result, roundTrips } = await countCalls(() => call('DELETE', `/applications/${app}`));
    expect(result.status).toBe(204);
    // The token, the application's read, the business's exports' Query (none live here), its attachments'
    // Query, one transaction erasing every attachment (records, count, idempotency tombstones, feed
    // redactions) and the application's own: none per attachment.
    expect(roundTrips).toBeLessThanOrEqual(6);
    expect((await fetch(url)).status).toBe(404);
    expect((await call('GET', `/applications/${app}/attachments`)).status).toBe(404);
    for (const prefix of ['uploads', 'attachments']) {
      const listed = await s3().send(
        new ListObjectsV2Command({ Bucket: process.env.ATTACHMENTS_BUCKET!, Prefix: `${prefix}/attachco/${app}/` }),
      );
      expect(listed.Contents ?? []).toEqual([]);
    }
    const leaks = (await scanAll()).filter((item) => JSON.stringify(item).includes(name));
    expect(leaks).toEqual([]);
    expect(await objectExists(pending.body.upload.fields.key)).toBe(false);
    // The feed keeps the entries (cursors stay valid), without their data.
    const entries = (await feed('attachment.available,attachment.rejected')).filter((e) =>
      [available.body.id, rejected.body.id].includes(e.id),
    );
    expect(entries.map((e) => [e.type, e.data])).toEqual([
      ['attachment.available', null],
      ['attachment.rejected', null],
    ]);
  });
});

it("retention erases an application's attachments with it: bytes and records", async () => {
  const retained = await api.provision({
    ...fixture('retainco'),
    business: { ...fixture('retainco').business, application_retention_days: 1 },
  });
  const res = await call(
    'POST',
    '/applications',
    { first_name: 'Rita', last_name: 'Retained', email: 'rita@example.com', accept_terms_and_conditions: true },
    retained,
  );
  const app = res.body.id as string;
  const created = await call(
    'POST',
    `/applications/${app}/attachments`,
    { file_name: 'Rita-Retained-CV.pdf', content_type: 'application/pdf', size: PDF.length },
    retained,
  );
  await uploadAndCheck(created.body.upload, PDF);
  const result = await asRetentionJob(() =>
    runRetention({ nowMs: Date.now() + 3 * 86_400_000, businessId: 'retainco' }),
  );
  expect(result).toEqual({ erased: 1, complete: true });
  for (const prefix of ['uploads', 'attachments']) {
    const listed = await s3().send(
      new ListObjectsV2Command({ Bucket: process.env.ATTACHMENTS_BUCKET!, Prefix: `${prefix}/retainco/` }),
    );
    expect(listed.Contents ?? []).toEqual([]);
  }
  expect((await scanAll()).filter((item) => JSON.stringify(item).includes('Rita-Retained'))).toEqual([]);
});

describe('cost', () => {
  it('create 3 round trips, show 2, list 2 (token included), whatever the number of attachments', async () => {
    const app = await newApplication();
    const { result, roundTrips: createTrips } = await countCalls(() => declare(app, 'a.txt', 'text/plain', 5));
    expect(result.status).toBe(201);
    expect(createTrips).toBeLessThanOrEqual(3);
    const { roundTrips: showTrips } = await countCalls(() =>
      call('GET', `/applications/${app}/attachments/${result.body.id}`),
    );
    expect(showTrips).toBeLessThanOrEqual(2);
    for (let i = 0; i < 5; i++) await declare(app, `b${i}.txt`, 'text/plain', 5);
    const { roundTrips: listTrips } = await countCalls(() => call('GET', `/applications/${app}/attachments`));
    expect(listTrips).toBeLessThanOrEqual(2);
  });
});

// Uploading straight to S3 needs nothing of the API: the presigned form is all a client sends.
it('the upload step needs no API token', async () => {
  const app = await newApplication();
  const created = await declare(app, 'cv.pdf', 'application/pdf', PDF.length);
  expect(await uploadAs(created.body.upload, PDF)).toBe(204);
});
