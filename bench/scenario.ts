/**
 * A benchmark scenario: a request that `npm run bench` hammers against a running understudy and
 * reports next to the baseline. Each area adds its own file under `bench/scenarios/` exporting
 * `scenarios: Scenario[]`; the runner picks up every file there.
 */
export interface BenchTarget {
  /** `http://127.0.0.1:<port>` of the understudy under test (fresh `:memory:` store, seed loaded). */
  baseUrl: string;
  adminToken: string;
  rootToken: string;
}

export interface BenchRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Scenario {
  /** Row label in the results table, e.g. `GET /api/v2/organizations/:org`. */
  name: string;
  /** Prepares state through the public API (and /_emulator) and returns the request to measure. */
  setup(target: BenchTarget): Promise<BenchRequest>;
}
