import type { ApplicationRecord } from '../../src/domain/application-record';

/**
 * An application record as a create would have stored it, for tests that seed a
 * business through the store (seedItems) instead of HTTP: only what the test
 * varies is given, the rest is a plain applicant with no optional fields.
 */
export function storedApplication(
  fields: Pick<ApplicationRecord, 'id' | 'created_at'> & Partial<ApplicationRecord>,
): ApplicationRecord {
  return {
    job_id: null,
    application_status_id: 'new',
    accept_terms_and_conditions: true,
    accept_archivation: false,
    language: 'en',
    campaign_id: null,
    first_name: 'Seeded',
    last_name: fields.id,
    gender: null,
    email: `${fields.id}@example.com`,
    phone: null,
    birthday: null,
    cf: {},
    updated_at: fields.created_at,
    version: 1,
    ...fields,
  };
}
