import { loadOptions, SETTING_NAMES, type OptionOverrides, type Options } from './options.ts';
import { maskedSetting } from './secrets.ts';
import { formatDuration } from './duration.ts';

/** Where a setting's value came from: a command's flag, the environment, the `.env` file, or the default. */
export type SettingSource = 'flag' | 'environment' | '.env' | 'default';

export interface EffectiveSetting {
  name: string;
  /** As it would be written in the environment, secrets masked; null when unset and without a default. */
  value: string | null;
  source: SettingSource;
}

/**
 * `chaintap config`: every setting's effective value and where it came from, from the same inputs
 * as loadOptions (a bad setting throws its ConfigError). `envFileNames`: the variables that the
 * `.env` file set (those already in the environment win over it).
 */
export function effectiveSettings(
  overrides: OptionOverrides,
  env: Record<string, string | undefined>,
  envFileNames: ReadonlySet<string>,
): EffectiveSetting[] {
  const options = loadOptions(overrides, env);
  const sourceOf = (name: keyof Options): SettingSource => {
    if (given(overrides[name])) return 'flag';
    if (given(env[name])) return envFileNames.has(name) ? '.env' : 'environment';
    return 'default';
  };
  return SETTING_NAMES.map((name) => {
    // UPSTREAM_RPS is UPSTREAM_RATE's older alias: the rate says where it came from when only the alias was set.
    const source = name === 'UPSTREAM_RATE' && sourceOf(name) === 'default' ? sourceOf('UPSTREAM_RPS') : sourceOf(name);
    const value = name === 'UPSTREAM_RPS' && source === 'default' ? undefined : settingText(options, name);
    return { name, value: value === undefined ? null : maskedSetting(name, value), source };
  });
}

function given(value: unknown): boolean {
  return value !== undefined && value !== '';
}

/** A setting's effective value, written as the environment would give it. */
function settingText(options: Options, name: keyof Options): string | undefined {
  if (name === 'UPSTREAM_RATE') return options.UPSTREAM_RATE.label;
  // A duration setting, as people write it (`24h`), not in the milliseconds it is held in.
  if (name === 'REFRESH_MAX_AGE') return formatDuration(options.REFRESH_MAX_AGE);
  const value = options[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(',') : String(value);
}
