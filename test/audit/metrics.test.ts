import { expect, test } from 'bun:test';
import { Metrics } from '../../src/audit/metrics.ts';

// Deno's listener passes any method token through to a 404; each made-up one would be a series of its
// own, kept for good, growing the registry and every scrape without bound.
test('requests with methods outside HTTP are counted as one OTHER series', () => {
  const metrics = new Metrics();
  metrics.finished('unmatched', 'GET', 404, 0.001);
  for (let i = 0; i < 300; i++) metrics.finished('unmatched', `M${i}${'A'.repeat(100)}`, 404, 0.001);
  const series = metrics
    .render()
    .split('\n')
    .filter((l) => l.startsWith('verity_http_requests_total{'));
  expect(series.sort()).toEqual([
    'verity_http_requests_total{method="GET",route="unmatched",status="404"} 1',
    'verity_http_requests_total{method="OTHER",route="unmatched",status="404"} 300',
  ]);
});
