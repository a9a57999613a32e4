import { setImmediate as nextTurn } from 'node:timers/promises';
import { ApiError } from '../../../core/errors.js';

/**
 * The most synchronous work (ms) a batch does before it lets the event loop serve other
 * requests: a batch of thousands of items would otherwise hold every connection (health
 * included) for as long as it runs.
 */
const SLICE_MS = 8;

/**
 * Items of one request worked on at once. Work that runs on libuv's threads (RSA signing) is
 * awaited a few at a time, so one request cannot fill the thread pool that file reads and the
 * key pool's EC keys share.
 */
const IN_FLIGHT = 2;

/**
 * `work` over every item, in order, in slices of at most about {@link SLICE_MS} of synchronous
 * work with a turn of the event loop between them. `work` must not throw (wrap it in
 * {@link attemptAsync}): a throw ends the batch.
 */
export async function mapInSlices<T, R>(items: readonly T[], work: (item: T, index: number) => R | Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let sliceStart = performance.now();
  for (let start = 0; start < items.length; start += IN_FLIGHT) {
    const end = Math.min(items.length, start + IN_FLIGHT);
    // Synchronous work (an AES encryption) is stored as it comes: awaiting it would cost a
    // promise and a microtask turn per pair of items, for no turn of the event loop.
    // Made only when an item is asynchronous: an array per pair of AES items is garbage.
    let pending: Promise<void>[] | undefined;
    for (let index = start; index < end; index++) {
      const result = work(items[index] as T, index);
      if (result instanceof Promise) (pending ??= []).push(result.then((value: R) => void (results[index] = value)));
      else results[index] = result;
    }
    if (pending) await Promise.all(pending);
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  return results;
}

/** Runs `work`, turning the expected (400) failure into the item's `error` text; async twin of `attempt`. */
export async function attemptAsync<T>(work: () => T | Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await work() };
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return { error: error.detail };
    throw error;
  }
}
