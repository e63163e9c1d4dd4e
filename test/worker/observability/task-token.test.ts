/** The SDK puts an activity's task token in its log metadata: amsflow's logger never writes it. */
import { AmsflowLogger } from '../../../worker/observability/logger';

it('drops the task token from every line, in both formats', () => {
  for (const format of ['json', 'pretty'] as const) {
    const lines: string[] = [];
    const logger = new AmsflowLogger({
      format,
      level: 'debug',
      stream: { write: (l: string) => lines.push(l) },
    });
    logger.warn('Activity failed', { taskToken: 'CiQ0ZGQ5-secret-capability', activityType: 'pollUpdates' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('CiQ0ZGQ5');
    expect(lines[0]).toContain('pollUpdates');
  }
});
