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
  'integration/ambiguous-writes.test.ts': 43,
  'integration/instances.test.ts': 41,
  'integration/application-erasure.test.ts': 26,
  'integration/deadlines.test.ts': 23,
  'integration/webhooks.test.ts': 18,
  'integration/rate-limits.test.ts': 17,
  'integration/hostile-input.test.ts': 14,
  'integration/client-package.test.ts': 14,
  'integration/client.test.ts': 10,
  'integration/applications-list.test.ts': 13,
  'integration/retention.test.ts': 13,
  'integration/local-stack.test.ts': 11,
  'integration/demo-sandbox.test.ts': 10,
  'integration/token-cache.test.ts': 9,
  'integration/local-setup.test.ts': 8,
  'integration/attachments.test.ts': 8,
  'integration/atomicity.test.ts': 8,
  'infra/api-stack.test.ts': 8,
  'integration/exports.test.ts': 8,
  'integration/deployed-bundles.test.ts': 7,
  'integration/changes.test.ts': 7,
  'integration/token-format.test.ts': 6,
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
