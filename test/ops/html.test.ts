import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from '../../src/ops/html.ts';

describe('html', () => {
  it('escapes interpolated text', () => {
    expect(html`<td>${'<b onclick="x">&\'</b>'}</td>`.text).toBe(
      '<td>&lt;b onclick=&quot;x&quot;&gt;&amp;&#39;&lt;/b&gt;</td>',
    );
  });

  it('keeps nested html as it is and joins arrays', () => {
    const items = ['a<', 'b'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>`.text).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
  });

  it('renders numbers and leaves null, undefined and false out', () => {
    expect(html`${1.5}|${null}|${undefined}|${false}|${0}`.text).toBe('1.5||||0');
  });

  it('escapes the five significant characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
