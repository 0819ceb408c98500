import fc from 'fast-check';
import {
  blockBounds,
  blockOf,
  countsOfStatus,
  jobListName,
  matchingRows,
  nextCreatedAt,
  sinceOf,
  statusBlocksOf,
  statusPagePlan,
  statusSequence,
  straddlingBlock,
  STATUS_BLOCK_SIZE,
  type ApplicationRow,
} from '../../src/domain/application-pages';

const B = STATUS_BLOCK_SIZE;

describe('blocks of business positions', () => {
  it('block b covers positions b*B+1 .. (b+1)*B', () => {
    expect(blockOf(1)).toBe(0);
    expect(blockOf(B)).toBe(0);
    expect(blockOf(B + 1)).toBe(1);
    expect(blockBounds(2)).toEqual({ first: 2 * B + 1, last: 3 * B });
    for (let p = 1; p < 5 * B; p += 7) {
      const { first, last } = blockBounds(blockOf(p));
      expect(p).toBeGreaterThanOrEqual(first);
      expect(p).toBeLessThanOrEqual(last);
    }
  });

  it('parses stored block items, sorted, counts per status dense with zeros', () => {
    const blocks = statusBlocksOf([
      { block: 2, 'n#new': 3, first_created_at: '2026-01-03T00:00:00.000Z' },
      { block: 0, 'n#new': 1, 'n#hired': 4, first_created_at: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(blocks.map((b) => b.block)).toEqual([0, 2]);
    expect(blocks[1]?.counts).toEqual({ new: 3 });
    expect(countsOfStatus(blocks, 'new')).toEqual([1, 0, 3]);
    expect(countsOfStatus(blocks, 'hired')).toEqual([4, 0, 0]);
    expect(countsOfStatus(blocks, 'new', 1)).toEqual([0, 3]);
    expect(countsOfStatus([], 'new')).toEqual([]);
  });

  it('negative counts (never expected) do not make totals negative', () => {
    expect(countsOfStatus(statusBlocksOf([{ block: 0, 'n#x': -1 }]), 'x')).toEqual([0]);
  });
});

describe('status sequences with created_at_since', () => {
  const blocks = statusBlocksOf([
    { block: 0, 'n#s': 5, first_created_at: '2026-01-01T00:00:00.000Z' },
    { block: 1, 'n#s': 2, first_created_at: '2026-02-01T00:00:00.000Z' },
    { block: 2, 'n#s': 4, first_created_at: '2026-03-01T00:00:00.000Z' },
  ]);

  it('finds the one block that can straddle since', () => {
    expect(straddlingBlock(blocks, '2025-12-01T00:00:00.000Z')).toBe(-1);
    expect(straddlingBlock(blocks, '2026-01-01T00:00:00.000Z')).toBe(-1);
    expect(straddlingBlock(blocks, '2026-01-01T00:00:00.001Z')).toBe(0);
    expect(straddlingBlock(blocks, '2026-02-15T00:00:00.000Z')).toBe(1);
    expect(straddlingBlock(blocks, '2027-01-01T00:00:00.000Z')).toBe(2);
  });

  it('without since: all blocks, nothing skipped', () => {
    expect(statusSequence(blocks, 's')).toEqual({ fromBlock: 0, counts: [5, 2, 4], skipBefore: 0, total: 11 });
  });

  it('with since inside block 1: starts there, skips its older entries', () => {
    expect(statusSequence(blocks, 's', { block: 1, matchingInStraddling: 1 })).toEqual({
      fromBlock: 1,
      counts: [2, 4],
      skipBefore: 1,
      total: 5,
    });
  });

  it('since after everything: total 0', () => {
    expect(statusSequence(blocks, 's', { block: 2, matchingInStraddling: 0 }).total).toBe(0);
  });

  it('since before everything (no straddling block): like no since', () => {
    expect(statusSequence(blocks, 's', { block: -1, matchingInStraddling: 0 }).total).toBe(11);
  });
});

describe('creation times follow positions', () => {
  it('is now when the clock is ahead of the last entry', () => {
    expect(nextCreatedAt(Date.parse('2026-01-01T00:00:01.000Z'), '2026-01-01T00:00:00.000Z')).toBe(
      '2026-01-01T00:00:01.000Z',
    );
  });
  it('is 1 ms after the last entry otherwise (same ms or a clock behind)', () => {
    const last = '2026-01-01T00:00:00.500Z';
    expect(nextCreatedAt(Date.parse(last), last)).toBe('2026-01-01T00:00:00.501Z');
    expect(nextCreatedAt(Date.parse('2025-12-31T00:00:00.000Z'), last)).toBe('2026-01-01T00:00:00.501Z');
  });
  it('is now for the first entry', () => {
    expect(nextCreatedAt(0, null)).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('since parameters', () => {
  it.each([
    ['2026-11-22', '2026-11-22T00:00:00.000Z'],
    ['2026-11-22T08:15:30Z', '2026-11-22T08:15:30.000Z'],
    ['2026-11-22T08:15:30.1Z', '2026-11-22T08:15:30.100Z'],
    ['2026-11-22T08:15:30.123Z', '2026-11-22T08:15:30.123Z'],
    ['2026-11-22T08:15:30.1230Z', '2026-11-22T08:15:30.123Z'],
    ['2026-11-22T08:15:30.1231Z', '2026-11-22T08:15:30.124Z'],
    ['2026-11-22T10:15:30+02:00', '2026-11-22T08:15:30.000Z'],
    ['2026-11-22T10:15:30.5+0200', '2026-11-22T08:15:30.500Z'],
  ])('%s -> %s', (input, expected) => {
    expect(sinceOf(input)).toBe(expected);
  });

  it.each(['yesterday', '2026-13-01', '2026-02-30', '2026-11-22T08:15:30', '2026-11-22T25:00:00Z', '', '12345'])(
    '%s is malformed',
    (input) => {
      expect(sinceOf(input)).toBeUndefined();
    },
  );
});

describe('in-memory filtering (fallback for combinations)', () => {
  const rows: ApplicationRow[] = [
    { position: 3, application_status_id: 'new', job_id: 'cook', created_at: '2026-01-03T00:00:00.000Z' },
    { position: 1, application_status_id: 'new', job_id: null, created_at: '2026-01-01T00:00:00.000Z' },
    { position: 2, application_status_id: 'hired', job_id: 'cook', created_at: '2026-01-02T00:00:00.000Z' },
    { position: 4, application_status_id: 'new', job_id: 'cook', created_at: '2026-01-04T00:00:00.000Z' },
  ];
  it('ANDs the filters and orders by position', () => {
    expect(matchingRows(rows, {}).map((r) => r.position)).toEqual([1, 2, 3, 4]);
    expect(matchingRows(rows, { statusId: 'new' }).map((r) => r.position)).toEqual([1, 3, 4]);
    expect(matchingRows(rows, { statusId: 'new', jobId: 'cook' }).map((r) => r.position)).toEqual([3, 4]);
    expect(matchingRows(rows, { jobId: null }).map((r) => r.position)).toEqual([1]);
    expect(
      matchingRows(rows, { jobId: 'cook', createdSince: '2026-01-03T00:00:00.000Z' }).map((r) => r.position),
    ).toEqual([3, 4]);
  });
});

describe('job list names', () => {
  it('keeps speculative applications apart from any job id, even "null"', () => {
    expect(jobListName(null)).not.toBe(jobListName('null'));
    expect(jobListName('cook')).toBe('applications-of-job:cook');
  });
});

describe('status pages equal the brute-force answer (property)', () => {
  /** A business list: position i+1 has status statuses[i] and created_at = its index in ms. */
  function blocksFor(statuses: string[], size: number) {
    const items: Record<string, unknown>[] = [];
    statuses.forEach((s, i) => {
      const b = Math.floor(i / size);
      const item = (items[b] ??= { block: b, first_created_at: new Date(i).toISOString() });
      item[`n#${s}`] = Number(item[`n#${s}`] ?? 0) + 1;
    });
    return statusBlocksOf(items);
  }

  it('for every status, since, page and per_page', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 120 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom('a', 'b', 'c', 'zz'),
        fc.option(fc.integer({ min: -2, max: 125 }), { nil: undefined }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 30 }),
        (statuses, size, status, sinceMs, perPage, pageNo) => {
          const blocks = blocksFor(statuses, size);
          const since = sinceMs === undefined ? undefined : new Date(Math.max(0, sinceMs)).toISOString();
          // Brute force: positions (1-based) of the status at/after since.
          const matching = statuses
            .map((s, i) => ({ s, pos: i + 1, created: new Date(i).toISOString() }))
            .filter((e) => e.s === status && (since === undefined || e.created >= since))
            .map((e) => e.pos);
          let cut: { block: number; matchingInStraddling: number } | undefined;
          if (since !== undefined) {
            const block = straddlingBlock(blocks, since);
            const { first, last } = blockBounds(block, size);
            cut = { block, matchingInStraddling: matching.filter((p) => block >= 0 && p >= first && p <= last).length };
          }
          const plan = statusPagePlan(statusSequence(blocks, status, cut), { page: pageNo, perPage }, size);
          expect(plan.total).toBe(matching.length);
          const want = matching.slice((pageNo - 1) * perPage, pageNo * perPage);
          // What the status partition Query returns: entries of the status from `from` on, in position order.
          const got = plan.read
            ? statuses
                .map((s, i) => ({ s, pos: i + 1 }))
                .filter((e) => e.s === status && e.pos >= plan.read!.from)
                .slice(0, plan.read.skip + plan.read.take)
                .slice(plan.read.skip)
                .map((e) => e.pos)
            : [];
          expect(got).toEqual(want);
          if (plan.read) expect(plan.read.skip).toBeLessThan(size);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
