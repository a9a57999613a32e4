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
  body?: string | Buffer;
  /**
   * A second request sent after each first one, to the path `pathFrom` reads out of the first
   * response (a one-time upload link), with its own `headers` and any `headersFrom` reads out of
   * it, and none of the first request's. The row's req/s then counts both requests.
   */
  followUp?: {
    method: string;
    headers?: Record<string, string>;
    body: Buffer;
    pathFrom: (responseBody: string) => string;
    /** Headers read out of the first response too (the wrapping token an unwrap sends). */
    headersFrom?: (responseBody: string) => Record<string, string>;
  };
  /**
   * A fixed number of requests (or pairs) instead of a timed run, for requests that store what
   * they send: a timed run would fill the in-memory store with however many it managed.
   */
  amount?: number;
  /**
   * Like `amount`, but this many in every round (the warm-up's included) however many rounds there
   * are: shared out, a fixed amount makes each round shorter as rounds are added, and a round of a
   * few hundred milliseconds is read to the server's 10 ms CPU ticks (see bench/run-driver.ts).
   */
  amountPerRound?: number;
  /**
   * Sent over HTTPS with this client certificate (PEM), trusting `ca` (rows of `auth/cert` logins,
   * on an `ownServer` started with UNDERSTUDY_TLS=auto). See bench/tls-request.ts.
   */
  tls?: { ca: string; cert: string; key: string };
  /**
   * Connections for this row instead of BENCH_CONNECTIONS: 1 for a pair whose second request must
   * follow its own first (a write before each restore); over two connections the requests interleave.
   */
  connections?: number;
}

export interface Scenario {
  /** Row label in the results table, e.g. `GET /api/v2/organizations/:org`. */
  name: string;
  /**
   * Scenarios naming the same world run one after another on one store: the runner resets the
   * store only when the world changes, so 100,000 workspaces are made once for several rows.
   * Each setup must then find what an earlier scenario of its world made (see `ensure`).
   */
  world?: string;
  /**
   * Runs on a fresh understudy of its own (started by the runner for this row, stopped after it)
   * instead of the shared one: for rows whose figure moves with what earlier worlds left in the
   * shared server's heap (point reads compared with the document baseline).
   */
  fresh?: boolean;
  /** Runs on a second understudy started as this edition (rows of hosted-only features); the default edition otherwise. */
  edition?: 'hosted';
  /** Prepares state through the public API (and /_emulator) and returns the request to measure. */
  setup(target: BenchTarget): Promise<BenchRequest>;
  /**
   * The same work done without understudy (a direct database call behind a bare HTTP server),
   * measured in the same run; the scenario's ratio is then to this instead of the general baseline.
   * It starts after the reset and before `setup` (the target is there for baselines that call a
   * stand-in understudy serves).
   */
  baseline?: { name: string; start(target: BenchTarget): Promise<BaselineServer> };
  /**
   * Runs on an understudy of its own, started fresh for this row (and stopped after it), instead of
   * the shared one that earlier rows have filled: for rows compared with a baseline that is itself a
   * fresh understudy, so both sides start from the same state.
   */
  ownServer?(): Promise<OwnServer>;
  /** Removes what setup and the measurement left outside understudy (database users). */
  teardown?(): Promise<void>;
}

export interface BaselineServer {
  baseUrl: string;
  request: BenchRequest;
  /** Its process, when it is a process of its own (not a server inside the bench's): its CPU per request is read. */
  pid?: number;
  stop(): Promise<void>;
}

export interface OwnServer {
  target: BenchTarget;
  /** The understudy's process, for its CPU per request. */
  pid?: number;
  stop(): Promise<void>;
}
