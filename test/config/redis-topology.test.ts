import { describe, expect, it } from 'vitest';
import { loadOptions } from '../../src/config/options.ts';
import { describeTopology, redisTopology, topologySetting } from '../../src/config/redis-topology.ts';
import { ConfigError } from '../../src/errors.ts';

const topologyOf = (env: Record<string, string>) => redisTopology(loadOptions({}, env));

describe('redisTopology', () => {
  it('is one node at REDIS_URL by default, with the URL credentials and TLS', () => {
    expect(topologyOf({})).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379', tls: false });
    expect(topologyOf({ REDIS_URL: 'rediss://app:p%40ss@cache:6380' })).toEqual({
      kind: 'single',
      url: 'rediss://app:p%40ss@cache:6380',
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(topologyOf({ REDIS_URL: 'redis://cache:6379', REDIS_PASSWORD: 'pw-1234', REDIS_TLS: 'true' })).toEqual({
      kind: 'single',
      url: 'redis://cache:6379',
      password: 'pw-1234',
      tls: true,
    });
  });

  it('reads a cluster from host:port entries, bare hosts and URLs alike', () => {
    expect(topologyOf({ REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, node-b , [::1]:7002 ' })).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'node-b', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      tls: false,
    });
    expect(
      topologyOf({
        REDIS_CLUSTER_NODES: 'rediss://u:secret-pw@a:7000,rediss://u:secret-pw@b:7001',
        REDIS_USERNAME: 'u',
      }),
    ).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ],
      username: 'u',
      password: 'secret-pw',
      tls: true,
    });
  });

  it('reads sentinels with the master name and both passwords', () => {
    const topology = topologyOf({
      REDIS_SENTINELS: 's1:26379,s2,s3:26380',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_PASSWORD: 'master-pw',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
    });
    expect(topology).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: 's3', port: 26380 },
      ],
      name: 'mymaster',
      password: 'master-pw',
      sentinelPassword: 'sentinel-pw',
      tls: false,
    });
    expect(topologySetting(topology)).toBe('REDIS_SENTINELS');
    expect(describeTopology(topology)).toBe('the master "mymaster" of the sentinels s1:26379,s2:26379,s3:26380');
  });

  it('refuses settings that name two topologies, or half of one, when the options load', () => {
    const refusals: [Record<string, string>, RegExp][] = [
      [{ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:7000' }, /REDIS_URL, REDIS_CLUSTER_NODES: set only one/],
      [{ REDIS_CLUSTER_NODES: 'b:7000', REDIS_SENTINELS: 's:26379' }, /set only one/],
      [{ REDIS_SENTINELS: 's:26379' }, /REDIS_SENTINEL_NAME: required/],
      [{ REDIS_SENTINEL_NAME: 'mymaster' }, /set REDIS_SENTINELS too/],
      [{ REDIS_CLUSTER_NODES: 'a:7000,http://b:7001' }, /must be host:port or a redis:\/\//],
      [{ REDIS_CLUSTER_NODES: 'a:notaport' }, /is not host:port/],
      [{ REDIS_CLUSTER_NODES: 'a:7000/2' }, /is not host:port/],
      [{ REDIS_CLUSTER_NODES: ' , ' }, /name at least one host:port/],
      [{ REDIS_CLUSTER_NODES: 'redis://a:7000,rediss://b:7001' }, /mixes redis:\/\/ and rediss:\/\//],
      [{ REDIS_CLUSTER_NODES: 'redis://:one-pw@a:7000,redis://:two-pw@b:7001' }, /different credentials/],
      [{ REDIS_CLUSTER_NODES: 'redis://:one-pw@a:7000', REDIS_PASSWORD: 'two-pw' }, /REDIS_PASSWORD: differs/],
      [{ REDIS_SENTINELS: 'redis://:pw-1234@s:26379', REDIS_SENTINEL_NAME: 'm' }, /no credentials in the list/],
      [{ QUEUE_PREFIX: '{chaintap}' }, /QUEUE_PREFIX: .*hash tags itself/],
    ];
    for (const [env, message] of refusals) {
      expect(() => loadOptions({}, env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadOptions({}, env), JSON.stringify(env)).toThrow(message);
    }
  });

  it('never echoes a password in its errors', () => {
    const env = { REDIS_CLUSTER_NODES: 'redis://:hunter2-pw@a:7000,redis://:hunter2-pw@b:7000/9' };
    expect(() => loadOptions({}, env)).toThrow(/is not host:port/);
    expect(() => loadOptions({}, env)).not.toThrow(/hunter2/);
  });

  it('takes an empty REDIS_URL as unset, so that a deployment can switch to sentinels', () => {
    const topology = topologyOf({ REDIS_URL: '', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'm' });
    expect(topology.kind).toBe('sentinel');
  });
});
