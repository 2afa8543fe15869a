import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { normalizeAddress } from '../chain/address.ts';
import { normalizeCoinType } from '../chain/coin-type.ts';
import { DATASETS, type Dataset } from '../datasets.ts';
import { InvalidInputError } from '../errors.ts';
import { readWebhookSecret } from './webhook.ts';
import { parseDuration } from '../config/duration.ts';

/** The rules file (docs/alerts.md), YAML or JSON; every problem is reported at once, naming rule and field. */
export type RuleKind = keyof typeof RULE_SCHEMAS;
/** Discrete events; the other kinds' conditions can stay true: one episode, one alert as it starts (and ends). */
type PositionEventKind = 'position_opened' | 'position_closed';

export interface Webhook {
  url: string;
  /** What logs, the status page and the outbox call it: its `name`, else its URL's host (never the URL). */
  name: string;
  /** First 16 hex digits of the URL's SHA-256: how the outbox refers to it. */
  id: string;
  /** The key its deliveries are signed with (Standard Webhooks, webhook.ts); none: unsigned. */
  signingKey?: Buffer;
}

/** Where settings such as a webhook's `secret_env` are read: the process's environment, given by the CLI. */
export type Environment = Record<string, string | undefined>;

export type Direction = 'up' | 'down' | 'any';

type RuleCommon = { id: string; webhooks: Webhook[] };

interface EpisodeCommon extends RuleCommon {
  /** No new episode of the same subject starts within this long after the last alert (0: none). */
  cooldownMs: number;
  /** Also send an event when the episode ends. */
  sendResolved: boolean;
}

type ChangeCommon = EpisodeCommon & { windowMs: number; percent: number; direction: Direction };

export type AlertRule =
  | (ChangeCommon & { kind: 'price_change'; token: string })
  | (ChangeCommon & { kind: 'portfolio_change'; address: string })
  | (ChangeCommon & { kind: 'nft_floor_change'; collection: string })
  | (EpisodeCommon & { kind: 'health_below'; address: string; threshold: number })
  | (EpisodeCommon & { kind: 'stale'; dataset: Dataset; maxAgeMs: number })
  | (RuleCommon & { kind: PositionEventKind; address: string });

export type EpisodeRule = Exclude<AlertRule, { kind: PositionEventKind }>;
export type PositionEventRule = Extract<AlertRule, { kind: PositionEventKind }>;

export type AlertRules = ReturnType<typeof parseRules>;

export function isEpisodeRule(rule: AlertRule): rule is EpisodeRule {
  return rule.kind !== 'position_opened' && rule.kind !== 'position_closed';
}

/** A type error's message: `missing` when the field is absent, else what it should be. */
const expected = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'missing' : `expected ${what}`;

const duration = z.unknown().transform((value, context) => {
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined) {
    const problem = value === undefined ? 'missing' : 'expected a duration such as 30s, 10m, 1h, 1d or 1w';
    context.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  return ms;
});

/** A value normalized by one of the chain parsers, whose InvalidInputError says what is wrong. */
const normalized = (normalize: (input: string) => string) =>
  z.string({ error: expected('a string') }).transform((value, context) => {
    try {
      return normalize(value);
    } catch (error) {
      context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  });

const positive = z.number({ error: expected('a number') }).positive({ error: 'expected a number above 0' });

const webhookSchema = z
  .strictObject({
    url: z
      .string({ error: expected('a URL') })
      .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), {
        error: 'expected an http:// or https:// URL',
      }),
    name: z.string().min(1).max(100).optional(),
    /** The signing secret itself (`whsec_...`), or the name of the environment variable that holds it. */
    secret: z
      .string({ error: expected('a string') })
      .check((context) => {
        const read = readWebhookSecret(context.value);
        if ('problem' in read) context.issues.push({ code: 'custom', message: read.problem, input: context.value });
      })
      .optional(),
    secret_env: z
      .string({ error: expected('a string') })
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected the name of an environment variable' })
      .optional(),
  })
  .refine((webhook) => webhook.secret === undefined || webhook.secret_env === undefined, {
    error: 'give "secret" or "secret_env", not both',
  });

const common = {
  id: z
    .string({ error: 'expected a string' })
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, { error: 'expected 1 to 64 letters, digits, "_", "." or "-"' }),
  kind: z.string(),
  webhooks: z.array(webhookSchema).min(1, { error: 'expected at least one webhook' }).optional(),
};
const episode = {
  ...common,
  cooldown: duration.optional(),
  send_resolved: z.boolean({ error: expected('true or false') }).default(true),
};
const change = {
  ...episode,
  window: duration,
  percent: positive,
  direction: z.enum(['up', 'down', 'any'], { error: 'expected up, down or any' }).default('any'),
};

/** Each kind's schema, in the order the kinds are listed in errors. */
const RULE_SCHEMAS = {
  price_change: z.strictObject({ ...change, token: normalized(normalizeCoinType) }),
  portfolio_change: z.strictObject({ ...change, address: normalized(normalizeAddress) }),
  position_opened: z.strictObject({ ...common, address: normalized(normalizeAddress) }),
  position_closed: z.strictObject({ ...common, address: normalized(normalizeAddress) }),
  health_below: z.strictObject({ ...episode, address: normalized(normalizeAddress), threshold: positive }),
  nft_floor_change: z.strictObject({ ...change, collection: z.string({ error: expected('a string') }).min(1) }),
  stale: z.strictObject({
    ...episode,
    dataset: z.enum(DATASETS, { error: `expected one of ${DATASETS.join(', ')}` }),
    max_age: duration,
  }),
};
const RULE_KINDS = Object.keys(RULE_SCHEMAS) as RuleKind[];

const fileSchema = z.strictObject({
  webhooks: z.array(webhookSchema).min(1, { error: 'expected at least one webhook' }).optional(),
  stale_check_interval: duration.optional(),
  rules: z.array(z.unknown(), { error: expected('a list of rules') }).min(1, { error: 'expected at least one rule' }),
});

/** A webhook of the file; a `secret_env` unset in `env` or not a secret is a problem, and it is then unsigned. */
export function toWebhook(
  input: z.output<typeof webhookSchema>,
  env: Environment = {},
  problems: string[] = [],
  where = 'webhooks',
): Webhook {
  const id = createHash('sha256').update(input.url).digest('hex').slice(0, 16);
  const webhook: Webhook = { url: input.url, name: input.name ?? new URL(input.url).host, id };
  let secret = input.secret;
  if (input.secret_env !== undefined) {
    secret = env[input.secret_env] || undefined;
    if (secret === undefined) problems.push(`${where}: field "secret_env": ${input.secret_env} is not set`);
  }
  if (secret !== undefined) {
    const read = readWebhookSecret(secret);
    if ('key' in read) webhook.signingKey = read.key;
    else problems.push(`${where}: field "secret_env": ${input.secret_env}: ${read.problem}`);
  }
  return webhook;
}

/** Reads and checks a rules file; a missing or invalid file is an InvalidInputError. */
export async function loadRulesFile(path: string, env: Environment = {}) {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === 'ENOENT' ? 'no such file' : String(error);
    throw new InvalidInputError(`cannot read the rules file ${path}: ${reason}`);
  });
  return parseRules(text, path, env);
}

/** Throws InvalidInputError listing every problem: `rules[3] (id "health"): field "threshold": expected a number`. */
export function parseRules(text: string, source: string, env: Environment = {}) {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
    throw new InvalidInputError(
      `invalid rules file ${source}${where}: ${error instanceof Error ? error.message.split('\n')[0]!.replace(/:$/, '') : String(error)}`,
    );
  }
  const top = fileSchema.safeParse(document ?? {});
  if (!top.success)
    throw rulesError(
      source,
      top.error.issues.map((issue) => describeIssue('', issue)),
    );
  const problems: string[] = [];
  const fileWebhooks = (top.data.webhooks ?? []).map((webhook, index) =>
    toWebhook(webhook, env, problems, `webhooks[${index}]`),
  );
  const rules: AlertRule[] = [];
  const seenIds = new Map<string, number>();
  top.data.rules.forEach((item, index) => {
    const { id, kind } = (item ?? {}) as { id?: unknown; kind?: unknown };
    const name = typeof id === 'string' && id ? `rules[${index}] (id "${id}")` : `rules[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push(`${name}: expected a rule (an object with id and kind)`);
      return;
    }
    if (typeof kind !== 'string' || !(RULE_KINDS as string[]).includes(kind)) {
      problems.push(`${name}: field "kind": expected one of ${RULE_KINDS.join(', ')}`);
      return;
    }
    const parsed = RULE_SCHEMAS[kind as RuleKind].safeParse(item);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => describeIssue(name, issue)));
      return;
    }
    const ownWebhooks = parsed.data.webhooks?.map((webhook, at) =>
      toWebhook(webhook, env, problems, `${name}: webhooks[${at}]`),
    );
    const rule = toRule(kind as RuleKind, parsed.data, ownWebhooks ?? fileWebhooks);
    const earlier = seenIds.get(rule.id);
    if (earlier !== undefined) problems.push(`${name}: field "id": the same id as rules[${earlier}]`);
    seenIds.set(rule.id, index);
    if (rule.webhooks.length === 0) {
      problems.push(`${name}: no webhook: give the rule its own "webhooks" or the file a top-level "webhooks" list`);
    }
    rules.push(rule);
  });
  if (problems.length > 0) throw rulesError(source, problems);
  const webhooks = new Map(rules.flatMap((rule) => rule.webhooks).map((webhook) => [webhook.id, webhook]));
  return {
    rules,
    /** Every distinct webhook of the file, the rules' own included. */
    webhooks: [...webhooks.values()],
    /** How often `stale` rules are evaluated besides on each NOTIFY (default 30 s). */
    staleCheckIntervalMs: Math.max(1_000, top.data.stale_check_interval ?? 30_000),
  };
}

type ParsedRule = { [K in RuleKind]: z.output<(typeof RULE_SCHEMAS)[K]> }[RuleKind];

function toRule(kind: RuleKind, input: ParsedRule, webhooks: Webhook[]): AlertRule {
  const data = input as unknown as Record<string, never>;
  const base = { id: input.id, webhooks };
  const episode = { ...base, cooldownMs: data.cooldown ?? 0, sendResolved: data.send_resolved ?? true };
  const changeOf = () => ({ ...episode, windowMs: data.window, percent: data.percent, direction: data.direction });
  switch (kind) {
    case 'price_change':
      return { ...changeOf(), kind, token: data.token };
    case 'portfolio_change':
      return { ...changeOf(), kind, address: data.address };
    case 'nft_floor_change':
      return { ...changeOf(), kind, collection: data.collection };
    case 'health_below':
      return { ...episode, kind, address: data.address, threshold: data.threshold };
    case 'stale':
      return { ...episode, kind, dataset: data.dataset, maxAgeMs: data.max_age };
    case 'position_opened':
    case 'position_closed':
      return { ...base, kind, address: data.address };
  }
}

/** `rules[2] (id "x"): field "webhooks[0].url": expected an http:// or https:// URL`. */
function describeIssue(prefix: string, issue: z.core.$ZodIssue): string {
  const field = z.core.toDotPath(issue.path);
  const where = (name: string) => [prefix, name ? `field "${name}"` : ''].filter(Boolean).join(': ');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((key) => `${where(field ? `${field}.${key}` : key)}: unknown field (a misspelt name?)`)
      .join('\n');
  }
  return `${where(field) || 'the file'}: ${issue.message}`;
}

function rulesError(source: string, problems: string[]): InvalidInputError {
  const lines = problems.flatMap((problem) => problem.split('\n'));
  return new InvalidInputError(`invalid rules file ${source}:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}
