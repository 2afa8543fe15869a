import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const ROOT = join(import.meta.dirname, '../..');

/**
 * Takes a browser test's screenshot into test-results/NAME; with UPDATE_SCREENSHOTS=1 also into
 * docs/DOCS_NAME, the picture the docs show (`UPDATE_SCREENSHOTS=1 npx vitest run
 * test/ops/*.browser.test.ts`), so that an ordinary test run never changes the tree.
 */
export async function takeScreenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean; docsName?: string } = {},
): Promise<void> {
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  await page.screenshot({ path: join(ROOT, 'test-results', name), fullPage: options.fullPage ?? false });
  if (options.docsName && process.env.UPDATE_SCREENSHOTS === '1') {
    await page.screenshot({ path: join(ROOT, 'docs', options.docsName), fullPage: options.fullPage ?? false });
  }
}

/** The vertices of an SVG path as drawn ("M x,y L x,y ..."), as the browser holds its `d`. */
export function pathVertices(d: string | null): number {
  return (d ?? '').split(/[ML]/).filter((part) => part.trim()).length;
}
