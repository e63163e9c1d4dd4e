/** Where the simulator says it can be reached (simulator/server.ts `originOf`), without starting one. */
import { originOf } from '../../simulator/server';

describe('originOf', () => {
  it('reaches a wildcard listen through loopback', () => {
    for (const host of ['0.0.0.0', '::', '']) expect(originOf(host, 8080)).toBe('http://127.0.0.1:8080');
  });

  it('keeps a named host and brackets an IPv6 address', () => {
    expect(originOf('127.0.0.1', 1)).toBe('http://127.0.0.1:1');
    expect(originOf('localhost', 2)).toBe('http://localhost:2');
    expect(originOf('::1', 3)).toBe('http://[::1]:3');
  });
});
