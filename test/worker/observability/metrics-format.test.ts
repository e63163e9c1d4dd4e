/**
 * The pure metrics core: counters, gauges and histogram buckets of the registry, and their
 * Prometheus text exposition (help, type, label escaping, cumulative buckets).
 */
import { MetricsRegistry } from '../../../worker/observability/metrics-registry';
import { escapeLabelValue, formatPrometheus } from '../../../worker/observability/prometheus-format';

describe('the metrics registry', () => {
  it('counts per label set, whatever the order of the labels', () => {
    const r = new MetricsRegistry();
    const sends = r.counter('amsflow_sends_total', 'Sends.');
    sends.inc({ agent: 'a', outcome: 'accepted' });
    sends.inc({ outcome: 'accepted', agent: 'a' }, 2);
    sends.inc({ agent: 'b', outcome: 'ambiguous' });
    expect(sends.get({ agent: 'a', outcome: 'accepted' })).toBe(3);
    expect(sends.get({ agent: 'b', outcome: 'ambiguous' })).toBe(1);
    expect(sends.get({ agent: 'c', outcome: 'accepted' })).toBe(0);
    expect(() => sends.inc({}, -1)).toThrow(/cannot go down/);
    // The same name again is the same metric; another kind under it is refused.
    expect(r.counter('amsflow_sends_total', 'Sends.')).toBe(sends);
    expect(() => r.gauge('amsflow_sends_total', 'x')).toThrow(/is a counter/);
    expect(() => r.counter('bad name', 'x')).toThrow(/Bad metric name/);
    expect(() => sends.inc({ 'bad-label': 'x' })).toThrow(/Bad label name/);
  });

  it('formats counters and gauges, escaping label values and help', () => {
    const r = new MetricsRegistry();
    r.counter('amsflow_polls_total', 'Polls.\nPer agent \\ outcome.').inc(
      { agent: 'a"b\\c\nd', outcome: 'page' },
      4,
    );
    r.gauge('amsflow_outbox_queue_length', 'Queue.').set({ agent: 'a' }, 0.5);
    r.gauge('amsflow_unused', 'No series yet.');
    expect(formatPrometheus(r.collect())).toBe(
      [
        '# HELP amsflow_polls_total Polls.\\nPer agent \\\\ outcome.',
        '# TYPE amsflow_polls_total counter',
        'amsflow_polls_total{agent="a\\"b\\\\c\\nd",outcome="page"} 4',
        '# HELP amsflow_outbox_queue_length Queue.',
        '# TYPE amsflow_outbox_queue_length gauge',
        'amsflow_outbox_queue_length{agent="a"} 0.5',
        '# HELP amsflow_unused No series yet.',
        '# TYPE amsflow_unused gauge',
        '',
      ].join('\n'),
    );
    expect(escapeLabelValue('plain')).toBe('plain');
    expect(formatPrometheus([])).toBe('');
  });

  it('counts histogram observations into cumulative buckets with +Inf, sum and count', () => {
    const r = new MetricsRegistry();
    const h = r.histogram('amsflow_poll_duration_seconds', 'Poll latency.', [0.1, 1, 10]);
    for (const v of [0.05, 0.1, 0.5, 2, 30]) h.observe({ agent: 'a' }, v);
    expect(() => r.histogram('amsflow_bad', 'x', [1, 1])).toThrow(/ascending/);
    expect(formatPrometheus(r.collect())).toBe(
      [
        '# HELP amsflow_poll_duration_seconds Poll latency.',
        '# TYPE amsflow_poll_duration_seconds histogram',
        'amsflow_poll_duration_seconds_bucket{agent="a",le="0.1"} 2',
        'amsflow_poll_duration_seconds_bucket{agent="a",le="1"} 3',
        'amsflow_poll_duration_seconds_bucket{agent="a",le="10"} 4',
        'amsflow_poll_duration_seconds_bucket{agent="a",le="+Inf"} 5',
        'amsflow_poll_duration_seconds_sum{agent="a"} 32.65',
        'amsflow_poll_duration_seconds_count{agent="a"} 5',
        '',
      ].join('\n'),
    );
  });
});
