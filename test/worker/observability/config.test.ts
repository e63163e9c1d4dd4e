/** The observability variables of worker/config.ts: defaults, `off`, bad values named. */
import { ConfigError, loadConfig } from '../../../worker/config';

describe('observability configuration', () => {
  it('defaults to port 9464 on loopback, pretty lines at warn, no bodies; json defaults to info', () => {
    expect(loadConfig({}).observability).toEqual({
      metricsPort: 9464,
      metricsHost: '127.0.0.1',
      logFormat: 'pretty',
      logLevel: 'warn',
      logBodies: false,
      healthCheckMs: 15_000,
    });
    expect(loadConfig({ AMSFLOW_LOG_FORMAT: 'json' }).observability.logLevel).toBe('info');
    expect(loadConfig({ AMSFLOW_HEALTH_CHECK_MS: '500' }).observability.healthCheckMs).toBe(500);
  });

  it('takes off, 0, levels in any case and AMSFLOW_LOG_BODIES=1', () => {
    const o = loadConfig({
      AMSFLOW_METRICS_PORT: 'off',
      AMSFLOW_LOG_LEVEL: 'DEBUG',
      AMSFLOW_LOG_BODIES: '1',
      AMSFLOW_LOG_FORMAT: 'json',
    }).observability;
    expect(o).toMatchObject({ metricsPort: 'off', logLevel: 'debug', logBodies: true, logFormat: 'json' });
    expect(loadConfig({ AMSFLOW_METRICS_PORT: '0' }).observability.metricsPort).toBe(0);
  });

  it('names every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({
        AMSFLOW_METRICS_PORT: 'nine',
        AMSFLOW_LOG_LEVEL: 'loud',
        AMSFLOW_LOG_FORMAT: 'xml',
        AMSFLOW_LOG_BODIES: 'yes',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = (error as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(names.sort()).toEqual(
      ['AMSFLOW_LOG_BODIES', 'AMSFLOW_LOG_FORMAT', 'AMSFLOW_LOG_LEVEL', 'AMSFLOW_METRICS_PORT'].sort(),
    );
  });
});
