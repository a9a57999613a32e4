import { ApiError, badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse } from '../../framework/types.js';

/**
 * The most `batch_input` items one request may carry: the real server's listener refuses a JSON
 * array of more than 10,000 elements by default (`max_json_array_element_count`), so no real
 * client sends a longer batch; a longer one here is a 400 before any item is worked on.
 */
export const MAX_BATCH_ITEMS = 10_000;

/** One `batch_input` item, its string members as sent (a single request becomes one item). */
export type BatchItem = Record<string, string | number | undefined>;

export const BATCH_FIELDS: Record<string, FieldSpec> = {
  batch_input: { type: 'any', description: 'A list of items processed in one request, answered in order in batch_results.' },
  partial_failure_response_code: { type: 'int', description: 'The status to answer when some items failed and others did not.' },
};

/**
 * `batch_input` as a list of items, or undefined when absent. String members must be strings and
 * `key_version` an integer, with the real decoder's texts; `required` members must be present.
 */
export function batchItems(request: HandlerRequest, required?: 'plaintext' | 'ciphertext'): BatchItem[] | undefined {
  const raw = request.data['batch_input'];
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw badRequest(`failed to parse batch input: source data must be an array or slice, got ${goType(raw)}`);
  if (raw.length === 0) throw badRequest('missing batch input to process');
  if (raw.length > MAX_BATCH_ITEMS) {
    throw badRequest(`batch_input has ${raw.length} items; at most ${MAX_BATCH_ITEMS} are accepted in one request`);
  }
  const problems: string[] = [];
  const items = raw.map((entry: unknown, index): BatchItem => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw badRequest(`failed to parse batch input: [${index}] expected a map, got '${goType(entry)}'`);
    }
    const item: BatchItem = {};
    const members = entry as Record<string, unknown>;
    // Names, not [name, value] pairs: a pair array per member per item is garbage a batch need not make.
    for (const name of Object.keys(members)) {
      const value = members[name];
      if (value === null || value === undefined) continue;
      if (name === 'key_version') {
        if (typeof value === 'number' && Number.isInteger(value)) item[name] = value;
        else problems.push(`'[${index}].key_version' expected type 'int', got unconvertible type '${goType(value)}'`);
      } else if (typeof value === 'string') item[name] = value;
      else problems.push(`'[${index}].${name}' expected type 'string', got unconvertible type '${goType(value)}'`);
    }
    if (required && item[required] === undefined) {
      problems.push(`'[${index}].${required}' missing ${required} to ${required === 'plaintext' ? 'encrypt' : 'decrypt'}`);
    }
    return item;
  });
  if (problems.length > 0) {
    throw badRequest(`failed to parse batch input: ${problems.length} error(s) decoding:\n\n* ${problems.join('\n* ')}`);
  }
  return items;
}

function goType(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'object' && value !== null) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'json.Number' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

export const stringOf = (item: BatchItem, name: string): string => {
  const value = item[name];
  return typeof value === 'string' ? value : '';
};

/** Runs `work`, turning the expected (400) failure into the item's `error` text. */
export function attempt<T>(work: () => T): { value: T } | { error: string } {
  try {
    return { value: work() };
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return { error: error.detail };
    throw error;
  }
}

/**
 * `batch_results`: each item's result with the item's `reference` (an empty one when it sent
 * none), a failed item as its `error` after the members it still carries (`onError`).
 */
export function batchResults(
  items: readonly BatchItem[],
  results: readonly ({ value: Record<string, unknown> } | { error: string })[],
  onError: Record<string, unknown> = {},
): Record<string, unknown>[] {
  return results.map((result, index) => {
    const reference = stringOf(items[index] ?? {}, 'reference');
    if ('error' in result) return { ...onError, error: result.error, reference };
    // The result object itself (each is made for its item and used nowhere else) takes the
    // reference: a spread copy per item, one site for every engine's result shapes, cost a batch
    // of 100 encryptions 20-35% more server CPU (issue 32's bench row, alternating rounds).
    const answer = result.value;
    answer['reference'] = reference;
    return answer;
  });
}

/**
 * The answer to a batch: 200 when every item worked, otherwise 400 (or
 * `partial_failure_response_code` when some items worked), with the results still in the body.
 */
export function batchResponse(
  request: HandlerRequest,
  data: Record<string, unknown>,
  failed: boolean,
  succeeded: boolean,
): LogicalResponse {
  if (!failed) return { data };
  let status = 400;
  const warnings: string[] = [];
  if (succeeded && request.fields.has('partial_failure_response_code')) {
    const code = request.fields.get<number>('partial_failure_response_code');
    if (code < 1 || code > 599)
      warnings.push(`invalid HTTP response code override from partial_failure_response_code, reverting to ${status}`);
    else status = code;
  }
  return { data, status, ...(warnings.length ? { warnings } : {}) };
}

/** A single (non-batch) item's failure is the request's failure. */
export function single<T>(result: { value: T } | { error: string }): T {
  if ('error' in result) throw badRequest(result.error);
  return result.value;
}
