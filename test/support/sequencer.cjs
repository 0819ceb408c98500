/**
 * Longest files first, so no worker is left running a long file alone at the end of the run. Jest orders by the
 * durations of the previous run, kept in its cache; on a fresh clone or with the cache cleared it has none and
 * orders by file size, which starts some of the longest files (spawned servers, rate windows, deadlines) last.
 * Then these durations stand in: seconds of each file in a full run on an idle 2-core machine, rounded.
 */
'use strict';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads a sequencer as CommonJS
const Sequencer = require('@jest/test-sequencer').default;

const SECONDS = {
  'integration/instances.test.ts': 70,
  'integration/ambiguous-writes.test.ts': 54,
  'integration/application-erasure.test.ts': 48,
  'integration/deadlines.test.ts': 25,
  'integration/webhooks.test.ts': 21,
  'integration/retention.test.ts': 20,
  'integration/local-setup.test.ts': 14,
  'integration/applications-list.test.ts': 14,
  'integration/deployed-bundles.test.ts': 13,
  'integration/rate-limits.test.ts': 13,
  'integration/exports.test.ts': 13,
  'integration/local-stack.test.ts': 12,
  'integration/effective-dates.test.ts': 9,
  'integration/webhook-operations.test.ts': 8,
  'integration/field-grants.test.ts': 8,
  'integration/hostile-input.test.ts': 11,
  'integration/attachments.test.ts': 11,
  'unit/rate-window.test.ts': 10,
  'infra/api-stack.test.ts': 10,
  'integration/token-scopes.test.ts': 9,
  'integration/client.test.ts': 8,
  'integration/imports.test.ts': 20,
  'integration/schema-truth.test.ts': 8,
  'integration/demo-sandbox.test.ts': 8,
  'integration/client-package.test.ts': 7,
  'unit/import-rows.test.ts': 7,
  'integration/atomicity.test.ts': 7,
  'integration/token-cache.test.ts': 7,
  'integration/admin-import.test.ts': 6,
  'integration/i18n.test.ts': 6,
  'integration/changes.test.ts': 6,
  'integration/token-format.test.ts': 5,
  'e2e/docs-browser.test.ts': 5,
};

const known = (path) => {
  const key = Object.keys(SECONDS).find((name) => path.endsWith(`/test/${name}`));
  return key ? SECONDS[key] * 1000 : undefined;
};

class LongestFirst extends Sequencer {
  time(test) {
    return super.time(test) ?? known(test.path) ?? 0;
  }
}

module.exports = LongestFirst;
