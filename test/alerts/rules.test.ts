import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/config/duration.ts';
import { parseRules } from '../../src/alerts/rules.ts';
import { InvalidInputError } from '../../src/errors.ts';
import { runCli } from '../support/cli.ts';

const ADDRESS = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const SUI = `0x${'0'.repeat(63)}2::sui::SUI`;

/** The example file, with real addresses. */
const EXAMPLE = `
webhooks:
  - url: https://hooks.example/T000/B000
rules:
  - { id: sui-move, kind: price_change, token: "0x2::sui::SUI", window: 1h, percent: 5 }
  - { id: whale-value, kind: portfolio_change, address: "${ADDRESS.toUpperCase().replace('0X', '0x')}", window: 1d, percent: 10 }
  - { id: whale-closed, kind: position_closed, address: "${ADDRESS}" }
  - { id: whale-opened, kind: position_opened, address: "${ADDRESS}" }
  - { id: health, kind: health_below, address: "${ADDRESS}", threshold: 1.2 }
  - { id: floor, kind: nft_floor_change, collection: "0xabc::nft::Ghost", window: 1d, percent: 20 }
  - { id: prices-stale, kind: stale, dataset: prices, max_age: 10m, cooldown: 1h, send_resolved: false,
      webhooks: [{ url: "http://127.0.0.1:9/pager", name: pager }] }
`;

/** The message of the InvalidInputError `text` is refused with. */
function refusal(text: string, env: Record<string, string> = {}): string {
  try {
    parseRules(text, 'rules.yaml', env);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as Error).message;
  }
  throw new Error('the rules were accepted');
}

describe('rules file', () => {
  it('reads every kind of the example, normalizing tokens and addresses', () => {
    const { rules, webhooks, staleCheckIntervalMs } = parseRules(EXAMPLE, 'rules.yaml');
    expect(rules.map((rule) => rule.kind)).toEqual([
      'price_change',
      'portfolio_change',
      'position_closed',
      'position_opened',
      'health_below',
      'nft_floor_change',
      'stale',
    ]);
    expect(rules[0]).toMatchObject({ id: 'sui-move', token: SUI, windowMs: 3600_000, percent: 5, direction: 'any' });
    expect(rules[0]).toMatchObject({ cooldownMs: 0, sendResolved: true });
    expect(rules[1]).toMatchObject({ address: ADDRESS, windowMs: 86_400_000 });
    expect(rules[4]).toMatchObject({ threshold: 1.2 });
    expect(rules[6]).toMatchObject({ dataset: 'prices', maxAgeMs: 600_000, cooldownMs: 3600_000, sendResolved: false });
    // A rule's own webhooks replace the file's; the webhook's id is not its URL.
    expect(rules[6]!.webhooks.map((webhook) => webhook.name)).toEqual(['pager']);
    expect(rules[0]!.webhooks.map((webhook) => webhook.name)).toEqual(['hooks.example']);
    expect(webhooks.map((webhook) => webhook.name)).toEqual(['hooks.example', 'pager']);
    expect(webhooks.every((webhook) => /^[0-9a-f]{16}$/.test(webhook.id))).toBe(true);
    expect(staleCheckIntervalMs).toBe(30_000);
  });

  it('reads JSON too', () => {
    const json = JSON.stringify({
      webhooks: [{ url: 'https://hooks.slack.com/services/T0/B0/x' }],
      stale_check_interval: '5s',
      rules: [{ id: 'nfts-stale', kind: 'stale', dataset: 'nfts', max_age: '2h' }],
    });
    const parsed = parseRules(json, 'rules.json');
    expect(parsed.rules).toMatchObject([{ id: 'nfts-stale', maxAgeMs: 7_200_000 }]);
    expect(parsed.staleCheckIntervalMs).toBe(5_000);
  });

  it('names the rule and the field of every problem at once', () => {
    const message = refusal(`
webhooks: [{ url: "https://hooks.example/x" }]
rules:
  - { id: sui-move, kind: price_change, token: "0x2::sui", window: 1x, percent: "5" }
  - { id: health, kind: health_below, address: "0x7d", treshold: 1.2 }
  - { kind: nope }
  - { id: st, kind: stale, dataset: trades }
  - { id: pos, kind: position_opened, address: "${ADDRESS}", webhooks: [{ url: "ftp://x" }] }
  - { id: pos, kind: position_closed, address: "${ADDRESS}", cooldown: 1h }
  - { id: dup, kind: position_closed, address: "${ADDRESS}" }
  - { id: dup, kind: position_opened, address: "${ADDRESS}" }
`);
    expect(message.split('\n')).toEqual([
      'invalid rules file rules.yaml:',
      '  rules[0] (id "sui-move"): field "window": expected a duration such as 30s, 10m, 1h, 1d or 1w',
      '  rules[0] (id "sui-move"): field "percent": expected a number',
      '  rules[0] (id "sui-move"): field "token": invalid coin type "0x2::sui": expected address::module::Name',
      '  rules[1] (id "health"): field "address": invalid address "0x7d": expected a SUI address (0x and 64 hex digits), an EVM address (0x and 40 hex digits), a Solana address (base58 of 32 bytes), a Bitcoin address (bech32 bc1… or base58 1…/3…), a TON address (EQ…/UQ… or workchain:hex)',
      '  rules[1] (id "health"): field "threshold": missing',
      '  rules[1] (id "health"): field "treshold": unknown field (a misspelt name?)',
      '  rules[2]: field "kind": expected one of price_change, portfolio_change, position_opened, position_closed, health_below, nft_floor_change, stale',
      '  rules[3] (id "st"): field "dataset": expected one of prices, positions, nfts',
      '  rules[3] (id "st"): field "max_age": missing',
      '  rules[4] (id "pos"): field "webhooks[0].url": expected an http:// or https:// URL',
      '  rules[5] (id "pos"): field "cooldown": unknown field (a misspelt name?)',
      '  rules[7] (id "dup"): field "id": the same id as rules[6]',
    ]);
  });

  it('refuses a rule without any webhook, an empty list and a file that is not YAML', () => {
    expect(refusal('rules: [{ id: a, kind: stale, dataset: prices, max_age: 1m }]')).toContain(
      'rules[0] (id "a"): no webhook: give the rule its own "webhooks" or the file a top-level "webhooks" list',
    );
    expect(refusal('webhooks: [{ url: "https://x.example" }]\nrules: []')).toContain(
      'field "rules": expected at least one rule',
    );
    expect(refusal('webhooks: [{ url: "https://x.example" }]')).toContain('field "rules": missing');
    expect(refusal('rules: [\n  { id: a')).toMatch(/^invalid rules file rules\.yaml \(line \d+\): /);
    expect(
      refusal('rules: [{ id: a, kind: stale, dataset: prices, max_age: 0m, webhooks: [{url: "https://x.example"}] }]'),
    ).toContain('field "max_age": expected a duration');
  });

  it("reads a webhook's signing secret from the file or the environment, refusing one that is not a secret", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const rule = '\nrules: [{ id: a, kind: stale, dataset: prices, max_age: 1m }]';
    const inline = parseRules(`webhooks: [{ url: "https://x.example", secret: "${secret}" }]${rule}`, 'rules.yaml');
    expect(inline.webhooks[0]!.signingKey).toEqual(Buffer.alloc(32, 7));
    const fromEnv = parseRules(`webhooks: [{ url: "https://x.example", secret_env: HOOK }]${rule}`, 'r.yaml', {
      HOOK: secret,
    });
    expect(fromEnv.webhooks[0]!.signingKey).toEqual(Buffer.alloc(32, 7));
    expect(parseRules(`webhooks: [{ url: "https://x.example" }]${rule}`, 'r.yaml').webhooks[0]!.signingKey).toBe(
      undefined,
    );

    expect(refusal(`webhooks: [{ url: "https://x.example", secret: "hunter2" }]${rule}`)).toContain(
      'field "webhooks[0].secret": expected a secret starting with "whsec_"',
    );
    expect(refusal(`webhooks: [{ url: "https://x.example", secret: "whsec_c2hvcnQ=" }]${rule}`)).toContain(
      'expected 24 to 64 bytes of key, got 5',
    );
    expect(
      refusal(`webhooks: [{ url: "https://x.example", secret: "${secret}", secret_env: HOOK }]${rule}`, {
        HOOK: secret,
      }),
    ).toContain('give "secret" or "secret_env", not both');
    expect(refusal(`webhooks: [{ url: "https://x.example", secret_env: HOOK }]${rule}`)).toContain(
      'webhooks[0]: field "secret_env": HOOK is not set',
    );
    const wrong = refusal(`webhooks: [{ url: "https://x.example", secret_env: HOOK }]${rule}`, {
      HOOK: 'not-a-secret',
    });
    expect(wrong).toContain('webhooks[0]: field "secret_env": HOOK: expected a secret starting with "whsec_"');
    expect(wrong).not.toContain('not-a-secret');
    expect(
      refusal(
        `rules: [{ id: a, kind: stale, dataset: prices, max_age: 1m, webhooks: [{ url: "https://x.example", secret_env: NOPE }] }]`,
      ),
    ).toContain('rules[0] (id "a"): webhooks[0]: field "secret_env": NOPE is not set');
  });

  it('parses durations of one unit', () => {
    expect(['30s', '10m', '1h', '1d', '2w'].map(parseDuration)).toEqual([
      30_000, 600_000, 3_600_000, 86_400_000, 1_209_600_000,
    ]);
    expect(['', '10', '1.5h', '1h30m', '0s', '-1m', 'h'].map(parseDuration)).toEqual(Array(7).fill(undefined));
    expect([600_000, 90_000, 86_400_000, 1500].map(formatDuration)).toEqual(['10m', '90s', '1d', '1500ms']);
  });
});

describe('chaintap alerts with a bad rules file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-alert-rules-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  // No database or Redis behind these settings: the file is refused before anything connects.
  const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };

  it('refuses it with the rule and the field, exit 1, for both alerts and alerts test', async () => {
    const file = join(folder, 'bad.yaml');
    writeFileSync(
      file,
      'webhooks: [{ url: "https://hooks.example/x" }]\nrules:\n  - { id: health, kind: health_below, address: "0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e", threshold: low }\n',
    );
    for (const args of [
      ['alerts', '--rules', file],
      ['alerts', 'test', '--rules', file],
    ]) {
      const result = await runCli(args, env, 60_000);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toBe(
        `error: invalid rules file ${file}:\n  rules[0] (id "health"): field "threshold": expected a number\n`,
      );
      expect(result.stdout).toBe('');
    }
    const missing = await runCli(['alerts', '--rules', join(folder, 'none.yaml')], env, 60_000);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`error: cannot read the rules file ${join(folder, 'none.yaml')}: no such file\n`);
  });
});
