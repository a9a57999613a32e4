/** The bearer token the document baseline accepts (shared by bench/baseline.ts and the runner). */
export const BASELINE_TOKEN = 'baseline-bench-token';
