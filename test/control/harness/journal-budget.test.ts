import { describe, expect, it } from 'vitest';
import { DROPPED_BODY, Journal, journalEntry, type JournalRecord } from '../../../src/control/harness/journal.js';
import { WatchedRequest } from '../../../src/control/harness/watched.js';

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

/** A watched point read as the harness journals it: the request's URL and its JSON answer. */
const read = (journal: Journal, name: string): WatchedRequest => {
  const request = new WatchedRequest(
    journal.allocateId(),
    `/api/v2/organizations/${name}?page=2`,
    `/api/v2/organizations/${name}`,
    'GET',
    1_000,
    2_000,
  );
  request.requestId = `req-${request.id}`;
  request.status = 200;
  request.durationMs = 0.25;
  request.subject = 'at-reader';
  request.response.value = JSON.stringify({ data: { id: name, padding: 'x'.repeat(300) } });
  request.response.json = true;
  request.captureRequest(undefined, false, 0, journal.arena);
  journal.add(request);
  return request;
};

describe('watched requests in the journal', () => {
  it('read back with their metadata and bodies, the oldest bodies dropped past the budget', () => {
    const journal = new Journal(100, 1_000);
    for (const name of ['one', 'two', 'three', 'four']) read(journal, name);
    const entries = journal.find({}).map(journalEntry);
    expect(entries.map((entry) => [entry.id, entry['request-id'], entry.method, entry.path, entry.query, entry.status])).toEqual([
      [1, 'req-1', 'GET', '/api/v2/organizations/one', { page: '2' }, 200],
      [2, 'req-2', 'GET', '/api/v2/organizations/two', { page: '2' }, 200],
      [3, 'req-3', 'GET', '/api/v2/organizations/three', { page: '2' }, 200],
      [4, 'req-4', 'GET', '/api/v2/organizations/four', { page: '2' }, 200],
    ]);
    expect(entries[0]).toMatchObject({
      'duration-ms': 0.25,
      'token-accessor': 'at-reader',
      time: new Date(1_000).toISOString(),
      fault: null,
    });
    expect(entries.map((entry) => entry['response-body'])).toEqual([
      DROPPED_BODY,
      DROPPED_BODY,
      { data: { id: 'three', padding: 'x'.repeat(300) } },
      { data: { id: 'four', padding: 'x'.repeat(300) } },
    ]);
    expect(entries.map((entry) => entry['request-body'])).toEqual([DROPPED_BODY, DROPPED_BODY, null, null]);
  });

  it('keep the ring: an overwritten entry is gone, a later read finds the newer one', () => {
    const journal = new Journal(3, 1_000_000);
    for (const name of ['a', 'b', 'c', 'd', 'e']) read(journal, name);
    expect(journal.find({}).map((record) => record.path)).toEqual([
      '/api/v2/organizations/c',
      '/api/v2/organizations/d',
      '/api/v2/organizations/e',
    ]);
    read(journal, 'f');
    expect(journal.find({ path: '/api/v2/organizations/*' }).map((record) => record.id)).toEqual([4, 5, 6]);
    expect(journal.clear()).toBe(3);
    expect(journal.find({})).toEqual([]);
  });
});
