// The bench scripts' latency figures from their samples.

/** The value at fraction `q` (0.5 the median, 1 the largest) of ascending `sorted` samples: index ⌊q·n⌋, at most the last; NaN when there are none. */
export function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}
