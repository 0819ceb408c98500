import { createClient } from '../../client/src/index';

/**
 * client.changes (contract §13, §23) reads to the head of the feed: a page may be empty while its `next_cursor`
 * moves on (every entry of a stretch was of another type than asked), and only an empty page that leaves the
 * cursor where it was is the head. Fed here by a fake fetch answering pages of the feed's shape.
 */
const entry = (id: string, cursor: string) => ({ cursor, type: 'employee.created', id, data: null });

function feed(pages: Record<string, { entries: unknown[]; next_cursor: string }>) {
  const asked: (string | null)[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const after = new URL(String(input)).searchParams.get('after');
    asked.push(after);
    const page = pages[after ?? ''];
    if (!page) throw new Error(`no page after ${after}`);
    return new Response(JSON.stringify(page), { headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { asked, client: createClient({ baseUrl: 'http://feed.test', token: 't', fetch }) };
}

it('goes on past empty pages whose cursor moved, and ends where an empty page leaves it', async () => {
  const { asked, client } = feed({
    '': { entries: [entry('a', 'c1')], next_cursor: 'c1' },
    c1: { entries: [], next_cursor: 'c100' }, // 99 entries of other types
    c100: { entries: [entry('b', 'c101')], next_cursor: 'c101' },
    c101: { entries: [], next_cursor: 'c101' },
  });
  const seen = [];
  for await (const change of client.changes({ types: ['employee.created'] })) seen.push([change.id, change.cursor]);
  expect(seen).toEqual([
    ['a', 'c1'],
    ['b', 'c101'],
  ]);
  expect(asked).toEqual([null, 'c1', 'c100', 'c101']);
});

it('with follow, polls at the head until the signal aborts, then ends quietly', async () => {
  const pages = {
    c5: { entries: [] as unknown[], next_cursor: 'c5' },
  };
  const { asked, client } = feed(pages);
  const stop = new AbortController();
  const seen: string[] = [];
  setTimeout(() => {
    pages.c5 = { entries: [entry('late', 'c6')], next_cursor: 'c6' };
    Object.assign(pages, { c6: { entries: [], next_cursor: 'c6' } });
  }, 30);
  for await (const change of client.changes({ cursor: 'c5', follow: true, intervalMs: 10, signal: stop.signal })) {
    seen.push(change.id);
    stop.abort();
  }
  expect(seen).toEqual(['late']);
  expect(asked.filter((a) => a === 'c5').length).toBeGreaterThanOrEqual(2);
});
