// The workers' Temporal SDK metrics (Prometheus text from WORKER_TEMPORAL_METRICS_ADDRESS), summed over the workers:
// counters and histograms as differences between two scrapes, the slot gauges sampled while a burst runs.

/** Series (name with its labels) → value, summed over every worker scraped. */
export type Scrape = Map<string, number>;

export async function scrape(urls: string[], taskQueue = 'convene'): Promise<Scrape> {
  const out: Scrape = new Map();
  for (const url of urls) {
    const text = await (await fetch(url)).text();
    for (const line of text.split('\n')) {
      if (!line.startsWith('temporal_')) continue;
      const at = line.lastIndexOf(' ');
      // Per-worker labels go (so workers sum); a sticky queue (named per worker) is called "sticky".
      const series = line
        .slice(0, at)
        .replace(/task_queue="([^"]*)"/, (_, queue: string) => `queue="${queue === taskQueue ? 'shared' : 'sticky'}"`)
        .replace(/,?worker_instance_key="[^"]*"/, '')
        .replace('{,', '{');
      const value = Number(line.slice(at + 1));
      if (Number.isFinite(value)) out.set(series, (out.get(series) ?? 0) + value);
    }
  }
  return out;
}

const nameOf = (series: string) => series.replace(/\{.*$/, '');
const labelsOf = (series: string) => (series.includes('{') ? series.slice(series.indexOf('{')) : '');

/** after − before, per series whose name matches. */
function delta(before: Scrape, after: Scrape, name: string): Array<[string, number]> {
  return [...after.entries()].filter(([series]) => nameOf(series) === name).map(([series, v]) => [labelsOf(series), v - (before.get(series) ?? 0)]);
}

/** The mean of a histogram between two scrapes, per label set (ms; the SDK's durations are milliseconds). */
export function histogramMeans(before: Scrape, after: Scrape, name: string): Array<{ labels: string; count: number; meanMs: number }> {
  const sums = new Map(delta(before, after, `${name}_sum`));
  return delta(before, after, `${name}_count`)
    .filter(([, count]) => count > 0)
    .map(([labels, count]) => ({ labels, count, meanMs: (sums.get(labels) ?? NaN) / count }));
}

/** A counter's growth between two scrapes, all label sets together. */
export function counterGrowth(before: Scrape, after: Scrape, name: string): number {
  return delta(before, after, name).reduce((a, [, v]) => a + v, 0);
}

/** Samples a gauge while `during` runs; the lowest value seen per label set (e.g. free slots per worker type). */
export async function lowestWhile<T>(urls: string[], name: string, during: Promise<T>, everyMs = 250): Promise<{ result: T; lowest: Map<string, number> }> {
  const lowest = new Map<string, number>();
  let done = false;
  const result = during.finally(() => {
    done = true;
  });
  while (!done && urls.length > 0) {
    const sample = await scrape(urls).catch(() => new Map<string, number>());
    for (const [series, v] of sample) if (nameOf(series) === name) lowest.set(labelsOf(series), Math.min(v, lowest.get(labelsOf(series)) ?? Infinity));
    await Promise.race([result.catch(() => undefined), new Promise((r) => setTimeout(r, everyMs))]);
  }
  return { result: await result, lowest };
}
