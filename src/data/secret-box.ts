/**
 * Webhook signing secrets are stored sealed, so a dump of the table alone does
 * not reveal them (docs/api.md "Webhooks"):
 * - deployed: `WEBHOOK_KMS_KEY_ID` — KMS Encrypt/Decrypt of the secret (under
 *   4 KB, so no data key is needed); only the functions granted the key can open it;
 * - locally and in tests: `WEBHOOK_SECRET_KEY` — a base64 AES-256 key (the local
 *   server keeps it in .dynamodb/webhook-key, mode 0600), AES-256-GCM.
 * The sealed form says which: `kms:<base64>` or `gcm:<iv>.<tag>.<ciphertext>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { webhookKmsKeyId, webhookSecretKey } from './config';
import { awsJsonCall } from './aws-json-requests';

function localKey(): Buffer {
  const raw = webhookSecretKey();
  const key = raw ? Buffer.from(raw, 'base64') : undefined;
  if (!key || key.length !== 32)
    throw new Error('WEBHOOK_KMS_KEY_ID or WEBHOOK_SECRET_KEY (base64 of 32 bytes) is required for webhook secrets');
  return key;
}

/** The binding context: a sealed secret copied to another subscription does not open there. */
const aad = (subscriptionKey: string): Buffer => Buffer.from(subscriptionKey, 'utf8');

export async function seal(secret: string, subscriptionKey: string): Promise<string> {
  const kmsKeyId = webhookKmsKeyId();
  if (kmsKeyId) {
    // KMS's JSON protocol carries blobs as base64.
    const out = await awsJsonCall('kms', 'Encrypt', {
      KeyId: kmsKeyId,
      Plaintext: Buffer.from(secret, 'utf8').toString('base64'),
      EncryptionContext: { subscription: subscriptionKey },
    });
    return `kms:${String(out.CiphertextBlob ?? '')}`;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', localKey(), iv);
  cipher.setAAD(aad(subscriptionKey));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `gcm:${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${body.toString('base64')}`;
}

export async function open(sealed: string, subscriptionKey: string): Promise<string> {
  if (sealed.startsWith('kms:')) {
    const out = await awsJsonCall('kms', 'Decrypt', {
      CiphertextBlob: sealed.slice(4),
      EncryptionContext: { subscription: subscriptionKey },
    });
    return Buffer.from(String(out.Plaintext ?? ''), 'base64').toString('utf8');
  }
  const [iv, tag, body] = sealed.slice(4).split('.');
  if (!sealed.startsWith('gcm:') || iv === undefined || tag === undefined || body === undefined)
    throw new Error('unknown sealed secret format');
  const decipher = createDecipheriv('aes-256-gcm', localKey(), Buffer.from(iv, 'base64'));
  decipher.setAAD(aad(subscriptionKey));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}
