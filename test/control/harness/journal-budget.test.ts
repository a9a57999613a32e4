import { describe, expect, it } from 'vitest';
import { DROPPED_BODY, Journal, type JournalRecord } from '../../../src/control/harness/journal.js';

const entry = (journal: Journal, keptBytes: number): JournalRecord => {
  const id = journal.allocateId();
  const record: JournalRecord = {
    id,
    requestId: `req-${id}`,
    timeMs: id,
    virtualMs: id,
    method: 'POST',
    path: '/v1/secret/data/x',
    query: '',
    status: 200,
    durationMs: 1,
    subject: null,
    bodies: () => ({ request: { n: id }, response: null }),
    keptBytes,
    fault: null,
  };
  journal.add(record);
  return record;
};

describe('the journal bounds the bodies it holds by bytes as well as by entries', () => {
  it('drops the oldest bodies past the budget and keeps every entry with its metadata', () => {
    const journal = new Journal(100, 1_000);
    const records = Array.from({ length: 5 }, () => entry(journal, 400));
    expect(journal.bodyBytes).toBeLessThanOrEqual(1_000);
    expect(records.slice(0, 3).map((record) => record.bodies().request)).toEqual([DROPPED_BODY, DROPPED_BODY, DROPPED_BODY]);
    expect(records.slice(3).map((record) => record.bodies().request)).toEqual([{ n: 4 }, { n: 5 }]);
    expect(journal.find({}).map((record) => record.requestId)).toEqual(['req-1', 'req-2', 'req-3', 'req-4', 'req-5']);
  });

  it('never trims the newest entry, even when it alone is over the budget', () => {
    const journal = new Journal(10, 100);
    entry(journal, 50);
    const large = entry(journal, 500);
    expect(large.bodies().request).toEqual({ n: 2 });
    expect(journal.bodyBytes).toBe(500);
  });

  it('stops counting an entry the ring overwrites, and a clear empties the count', () => {
    const journal = new Journal(10, 1_000_000);
    for (let i = 0; i < 25; i++) entry(journal, 10);
    expect(journal.bodyBytes).toBe(100);
    journal.clear();
    expect(journal.bodyBytes).toBe(0);
  });
});
