/** p50 and p99 (nearest rank) of samples in ms. */
export interface LatencySummary {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

function rank(sorted: readonly number[], quantile: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Summarises latency samples. */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: rank(sorted, 0.5),
    p99: rank(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    count: sorted.length,
  };
}

/** `1.23 ms` */
export function ms(value: number): string {
  return `${value.toFixed(2)} ms`;
}
