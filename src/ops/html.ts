/**
 * A tagged template that escapes every interpolated value unless it is already HTML (built by this
 * tag), so that a field from the database or a queue can never inject markup into a page.
 */
export class Html {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

type Interpolation = Html | string | number | bigint | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function render(value: Interpolation): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  return new Html(strings.reduce((text, string, index) => text + render(values[index - 1]) + string));
}
