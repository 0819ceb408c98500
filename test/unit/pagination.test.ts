import fc from 'fast-check';
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  envelope,
  linkHeader,
  locateInBlocks,
  pagePositions,
  totalPages,
} from '../../src/domain/pagination';

describe('constants', () => {
  it('30 per page by default, at most 100', () => {
    expect(DEFAULT_PER_PAGE).toBe(30);
    expect(MAX_PER_PAGE).toBe(100);
  });
});

describe('pagePositions', () => {
  it('first page', () => expect(pagePositions({ page: 1, perPage: 30 }, 100)).toEqual({ first: 1, last: 30 }));
  it('a middle page', () => expect(pagePositions({ page: 2, perPage: 30 }, 100)).toEqual({ first: 31, last: 60 }));
  it('the last, partial page', () =>
    expect(pagePositions({ page: 4, perPage: 30 }, 100)).toEqual({ first: 91, last: 100 }));
  it('the last page when it is full', () =>
    expect(pagePositions({ page: 3, perPage: 30 }, 90)).toEqual({ first: 61, last: 90 }));
  it('the page just past the end is null', () => expect(pagePositions({ page: 4, perPage: 30 }, 90)).toBeNull());
  it('far past the end is null', () => expect(pagePositions({ page: 1_000_000, perPage: 100 }, 90)).toBeNull());
  it('an empty list has no positions, even on page 1', () =>
    expect(pagePositions({ page: 1, perPage: 30 }, 0)).toBeNull());
  it('per_page 1', () => {
    expect(pagePositions({ page: 1, perPage: 1 }, 3)).toEqual({ first: 1, last: 1 });
    expect(pagePositions({ page: 3, perPage: 1 }, 3)).toEqual({ first: 3, last: 3 });
    expect(pagePositions({ page: 4, perPage: 1 }, 3)).toBeNull();
  });
  it('per_page 100', () => {
    expect(pagePositions({ page: 1, perPage: 100 }, 250)).toEqual({ first: 1, last: 100 });
    expect(pagePositions({ page: 3, perPage: 100 }, 250)).toEqual({ first: 201, last: 250 });
  });
  it('an offset shifts the positions of a sub-range, not where it ends', () => {
    expect(pagePositions({ page: 1, perPage: 30 }, 40, 7)).toEqual({ first: 8, last: 37 });
    expect(pagePositions({ page: 2, perPage: 30 }, 40, 7)).toEqual({ first: 38, last: 47 });
    expect(pagePositions({ page: 3, perPage: 30 }, 40, 7)).toBeNull();
  });
  it('an unknown total (the largest safe integer) gives the full page', () => {
    expect(pagePositions({ page: 5, perPage: 30 }, Number.MAX_SAFE_INTEGER)).toEqual({ first: 121, last: 150 });
  });
  it('every position of the list is on exactly one page', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 50 }),
        (total, perPage, offset) => {
          const seen: number[] = [];
          for (let page = 1; page <= totalPages(total, perPage) + 1; page++) {
            const r = pagePositions({ page, perPage }, total, offset);
            if (r) for (let p = r.first; p <= r.last; p++) seen.push(p);
          }
          expect(seen).toEqual(Array.from({ length: total }, (_, i) => offset + i + 1));
        },
      ),
    );
  });
});

describe('envelope', () => {
  it('has exactly the spec fields', () => {
    expect(envelope(['a', 'b'], { page: 2, perPage: 2 }, 5)).toEqual({
      entries: ['a', 'b'],
      current_page: 2,
      per_page: 2,
      total_entries: 5,
    });
    expect(Object.keys(envelope([], { page: 1, perPage: 30 }, 0))).toEqual([
      'entries',
      'current_page',
      'per_page',
      'total_entries',
    ]);
  });
  it('echoes a page past the end with empty entries', () => {
    expect(envelope([], { page: 9, perPage: 30 }, 31)).toEqual({
      entries: [],
      current_page: 9,
      per_page: 30,
      total_entries: 31,
    });
  });
});

describe('totalPages', () => {
  it.each([
    [0, 30, 1],
    [1, 30, 1],
    [30, 30, 1],
    [31, 30, 2],
    [100, 1, 100],
    [100, 100, 1],
    [101, 100, 2],
  ])('%i entries at %i per page: %i page(s)', (total, perPage, pages) =>
    expect(totalPages(total, perPage)).toBe(pages),
  );
});

describe('linkHeader', () => {
  const PATH = '/services/api/v1/applications';
  const rels = (header: string): Record<string, string> =>
    Object.fromEntries(
      header.split(', ').map((part) => {
        const m = /^<([^>]*)>; rel="(\w+)"$/.exec(part);
        if (!m) throw new Error(`malformed link ${part}`);
        return [m[2] as string, m[1] as string];
      }),
    );

  it('the exact form of a middle page', () => {
    expect(linkHeader(PATH, { job_id: 'x' }, { page: 2, perPage: 30 }, 100, false)).toBe(
      '</services/api/v1/applications?job_id=x&page=1>; rel="first", ' +
        '</services/api/v1/applications?job_id=x&page=1>; rel="prev", ' +
        '</services/api/v1/applications?job_id=x&page=3>; rel="next", ' +
        '</services/api/v1/applications?job_id=x&page=4>; rel="last"',
    );
  });

  it('first page: no prev', () => {
    expect(rels(linkHeader(PATH, {}, { page: 1, perPage: 30 }, 100, false))).toEqual({
      first: `${PATH}?page=1`,
      next: `${PATH}?page=2`,
      last: `${PATH}?page=4`,
    });
  });

  it('last page: no next', () => {
    expect(rels(linkHeader(PATH, {}, { page: 4, perPage: 30 }, 100, false))).toEqual({
      first: `${PATH}?page=1`,
      prev: `${PATH}?page=3`,
      last: `${PATH}?page=4`,
    });
  });

  it('a single page: first and last only, both page 1', () => {
    expect(linkHeader(PATH, {}, { page: 1, perPage: 30 }, 30, false)).toBe(
      `<${PATH}?page=1>; rel="first", <${PATH}?page=1>; rel="last"`,
    );
  });

  it('an empty list: first and last point at page 1', () => {
    expect(rels(linkHeader(PATH, {}, { page: 1, perPage: 30 }, 0, false))).toEqual({
      first: `${PATH}?page=1`,
      last: `${PATH}?page=1`,
    });
  });

  it('past the end: prev points at the last page, no next', () => {
    expect(rels(linkHeader(PATH, {}, { page: 9, perPage: 30 }, 100, false))).toEqual({
      first: `${PATH}?page=1`,
      prev: `${PATH}?page=4`,
      last: `${PATH}?page=4`,
    });
  });

  it('past the end of an empty list: prev is page 1', () => {
    expect(rels(linkHeader(PATH, {}, { page: 3, perPage: 30 }, 0, false)).prev).toBe(`${PATH}?page=1`);
  });

  it('right after the end: prev is the last page', () => {
    expect(rels(linkHeader(PATH, {}, { page: 5, perPage: 30 }, 100, false)).prev).toBe(`${PATH}?page=4`);
  });

  it('per_page appears only when the client gave it, after page', () => {
    expect(rels(linkHeader(PATH, {}, { page: 1, perPage: 30 }, 100, true))).toEqual({
      first: `${PATH}?page=1&per_page=30`,
      next: `${PATH}?page=2&per_page=30`,
      last: `${PATH}?page=4&per_page=30`,
    });
    expect(rels(linkHeader(PATH, {}, { page: 2, perPage: 1 }, 3, true))).toEqual({
      first: `${PATH}?page=1&per_page=1`,
      prev: `${PATH}?page=1&per_page=1`,
      next: `${PATH}?page=3&per_page=1`,
      last: `${PATH}?page=3&per_page=1`,
    });
  });

  it('per_page 100: the last page accounts for the size', () => {
    expect(rels(linkHeader(PATH, {}, { page: 1, perPage: 100 }, 250, true)).last).toBe(`${PATH}?page=3&per_page=100`);
  });

  it('keeps the other parameters in order and replaces page and per_page given in query', () => {
    const header = linkHeader(
      PATH,
      { application_status_id: 'new', page: '7', job_id: 'null', per_page: '5', created_at_since: '2026-01-01' },
      { page: 2, perPage: 5 },
      12,
      false,
    );
    expect(rels(header)).toEqual({
      first: `${PATH}?application_status_id=new&job_id=null&created_at_since=2026-01-01&page=1`,
      prev: `${PATH}?application_status_id=new&job_id=null&created_at_since=2026-01-01&page=1`,
      next: `${PATH}?application_status_id=new&job_id=null&created_at_since=2026-01-01&page=3`,
      last: `${PATH}?application_status_id=new&job_id=null&created_at_since=2026-01-01&page=3`,
    });
  });

  it('encodes keys and values', () => {
    const header = linkHeader(
      PATH,
      { updated_at_since: '2026-11-22T09:15:30+01:00', 'odd key': 'a&b=c/d<>,"' },
      { page: 1, perPage: 30 },
      1,
      false,
    );
    expect(rels(header).first).toBe(
      `${PATH}?updated_at_since=2026-11-22T09%3A15%3A30%2B01%3A00&odd%20key=a%26b%3Dc%2Fd%3C%3E%2C%22&page=1`,
    );
    // No raw character that would break the header's own syntax.
    expect(header.split(', ')).toHaveLength(2);
  });

  it('rels always come in the order first, prev, next, last', () => {
    const order = linkHeader(PATH, {}, { page: 2, perPage: 10 }, 50, false)
      .split(', ')
      .map((p) => /rel="(\w+)"/.exec(p)?.[1]);
    expect(order).toEqual(['first', 'prev', 'next', 'last']);
  });
});

describe('locateInBlocks', () => {
  it('within the first block', () => {
    expect(locateInBlocks([5, 5], 1)).toEqual({ block: 0, skipInBlock: 0 });
    expect(locateInBlocks([5, 5], 5)).toEqual({ block: 0, skipInBlock: 4 });
  });
  it('crossing into a later block', () => {
    expect(locateInBlocks([5, 5], 6)).toEqual({ block: 1, skipInBlock: 0 });
    expect(locateInBlocks([5, 5], 10)).toEqual({ block: 1, skipInBlock: 4 });
  });
  it('beyond the sum is null', () => {
    expect(locateInBlocks([5, 5], 11)).toBeNull();
    expect(locateInBlocks([], 1)).toBeNull();
    expect(locateInBlocks([0, 0, 0], 1)).toBeNull();
  });
  it('skips empty blocks, leading, inner and trailing', () => {
    expect(locateInBlocks([0, 0, 3, 0, 0, 2, 0], 1)).toEqual({ block: 2, skipInBlock: 0 });
    expect(locateInBlocks([0, 0, 3, 0, 0, 2, 0], 3)).toEqual({ block: 2, skipInBlock: 2 });
    expect(locateInBlocks([0, 0, 3, 0, 0, 2, 0], 4)).toEqual({ block: 5, skipInBlock: 0 });
    expect(locateInBlocks([0, 0, 3, 0, 0, 2, 0], 5)).toEqual({ block: 5, skipInBlock: 1 });
    expect(locateInBlocks([0, 0, 3, 0, 0, 2, 0], 6)).toBeNull();
  });
  it('k below 1 is null', () => {
    expect(locateInBlocks([3], 0)).toBeNull();
    expect(locateInBlocks([3], -1)).toBeNull();
    expect(locateInBlocks([3], NaN)).toBeNull();
  });
  it('a negative count counts as none', () => {
    expect(locateInBlocks([-2, 1], 1)).toEqual({ block: 1, skipInBlock: 0 });
  });
  it('agrees with walking the flattened matches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 200 }),
        (counts, k) => {
          const flat = counts.flatMap((c, block) =>
            Array.from({ length: c }, (_, skip) => ({ block, skipInBlock: skip })),
          );
          expect(locateInBlocks(counts, k)).toEqual(flat[k - 1] ?? null);
        },
      ),
    );
  });
});
