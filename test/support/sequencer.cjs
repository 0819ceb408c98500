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
  'integration/application-erasure.test.ts': 39,
  'integration/instances.test.ts': 35,
  'integration/ambiguous-writes.test.ts': 34,
  'integration/local-setup.test.ts': 30,
  'integration/retention.test.ts': 27,
  'integration/admin-import.test.ts': 25,
  'integration/webhooks.test.ts': 25,
  'integration/deadlines.test.ts': 22,
  'integration/deployed-bundles.test.ts': 19,
  'integration/rate-limits.test.ts': 18,
  'infra/context.test.ts': 16,
  'integration/applications-list.test.ts': 16,
  'integration/token-scopes.test.ts': 16,
  'integration/i18n.test.ts': 16,
  'integration/hostile-input.test.ts': 15,
  'integration/local-stack.test.ts': 12,
  'integration/exports.test.ts': 12,
  'integration/typed-client.test.ts': 12,
  'integration/token-format.test.ts': 10,
  'integration/atomicity.test.ts': 10,
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
