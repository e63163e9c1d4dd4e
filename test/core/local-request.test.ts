/**
 * The Host and Origin check every local server applies (core/local-request.ts), as a table:
 * rebound DNS names, foreign origins, pages embedding without CORS, and what must still pass.
 */
import {
  allowedHostProblem,
  checkLocalRequest,
  isLoopbackHost,
  parseHostHeader,
} from '../../core/local-request';

const loopback = { listenHost: '127.0.0.1' };
const everywhere = { listenHost: '0.0.0.0', allowedHosts: ['amsflow-worker-1', '.svc.cluster.local'] };

describe('checkLocalRequest', () => {
  it.each([
    ['loopback, by address', loopback, { host: '127.0.0.1:8888' }],
    ['loopback, by localhost', loopback, { host: 'localhost:8888' }],
    ['loopback, no port', loopback, { host: '127.0.0.1' }],
    ['IPv6 loopback', { listenHost: '::1' }, { host: '[::1]:9464' }],
    ['listening on localhost', { listenHost: 'localhost' }, { host: '127.0.0.1:1' }],
    ['every interface, any IP address', everywhere, { host: '10.1.2.3:9464' }],
    ['every interface, IPv6', { listenHost: '::' }, { host: '[fe80::1]:9464' }],
    ['a configured name', everywhere, { host: 'amsflow-worker-1:9464' }],
    ['a configured name, any case', everywhere, { host: 'AMSFLOW-Worker-1:9464' }],
    ['a name under a configured domain', everywhere, { host: 'w.amsflow.svc.cluster.local' }],
    ['same origin', loopback, { host: '127.0.0.1:8888', origin: 'http://127.0.0.1:8888' }],
    [
      'same origin behind https',
      everywhere,
      { host: 'amsflow-worker-1', origin: 'https://amsflow-worker-1' },
    ],
    [
      'an allowed origin',
      { ...loopback, allowedOrigins: ['http://localhost:8233'] },
      { host: '127.0.0.1:8888', origin: 'http://localhost:8233' },
    ],
    ['a same-origin fetch', loopback, { host: '127.0.0.1:1', 'sec-fetch-site': 'same-origin' }],
    ['a typed address', loopback, { host: '127.0.0.1:1', 'sec-fetch-site': 'none' }],
  ])('serves %s', (_name, policy, headers) => {
    expect(checkLocalRequest(policy, headers)).toBeUndefined();
  });

  it.each([
    ['a rebound name', loopback, { host: 'evil.example:8888' }, 'host'],
    ['a rebound name that looks local', loopback, { host: 'localhost.evil.example:8888' }, 'host'],
    ['localhost with a trailing dot (resolved by DNS)', loopback, { host: 'localhost.:8888' }, 'host'],
    ['no Host', loopback, {}, 'host'],
    ['a malformed Host', loopback, { host: 'a b' }, 'host'],
    ['another address than the one listened on', loopback, { host: '10.0.0.1:8888' }, 'host'],
    ['localhost when not listening on loopback', { listenHost: '10.0.0.1' }, { host: 'localhost' }, 'host'],
    ['a name on every interface', everywhere, { host: 'evil.example:9464' }, 'host'],
    ['the bare domain of a subdomain rule', everywhere, { host: 'svc.cluster.local' }, 'host'],
    ['a foreign origin', loopback, { host: '127.0.0.1:8888', origin: 'http://evil.example' }, 'origin'],
    [
      'another port of this host',
      loopback,
      { host: '127.0.0.1:8888', origin: 'http://127.0.0.1:8233' },
      'origin',
    ],
    ['Origin null', loopback, { host: '127.0.0.1:8888', origin: 'null' }, 'origin'],
    ['a malformed origin', loopback, { host: '127.0.0.1:8888', origin: 'http://127.0.0.1:8888/' }, 'origin'],
    [
      'an embedding page of another site',
      loopback,
      { host: '127.0.0.1:1', 'sec-fetch-site': 'cross-site' },
      'origin',
    ],
    [
      'an embedding page of the same site',
      loopback,
      { host: '127.0.0.1:1', 'sec-fetch-site': 'same-site' },
      'origin',
    ],
  ])('refuses %s', (_name, policy, headers, what) => {
    const refusal = checkLocalRequest(policy, headers);
    expect(refusal?.what).toBe(what);
    expect(refusal?.reason).toEqual(expect.any(String));
  });

  it('the Host check comes first: an allowed origin does not help a rebound name', () => {
    const policy = { ...loopback, allowedOrigins: ['http://evil.example:8888'] };
    const refusal = checkLocalRequest(policy, {
      host: 'evil.example:8888',
      origin: 'http://evil.example:8888',
    });
    expect(refusal?.what).toBe('host');
    expect(refusal?.reason).toContain('"evil.example"');
  });
});

describe('the helpers', () => {
  it('parses Host headers', () => {
    expect(parseHostHeader('Example.COM:80')).toEqual({ hostname: 'example.com', port: 80 });
    expect(parseHostHeader('[::1]:9464')).toEqual({ hostname: '[::1]', port: 9464 });
    expect(parseHostHeader('127.0.0.1')).toEqual({ hostname: '127.0.0.1', port: undefined });
    for (const bad of ['', 'a:b', 'a:99999', '::1', 'a/b', 'x y', 'a..b', '[zz]'])
      expect({ bad, parsed: parseHostHeader(bad) }).toEqual({ bad, parsed: undefined });
  });

  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com']) expect(isLoopbackHost(host)).toBe(false);
  });

  it('checks configured host names', () => {
    for (const name of ['ui.example', '.example', 'amsflow-worker-1', '10.0.0.1'])
      expect(allowedHostProblem(name)).toBeUndefined();
    for (const name of ['', 'http://ui.example', 'ui.example:80', 'a b'])
      expect(allowedHostProblem(name)).toMatch(/is not a host name/);
  });
});
