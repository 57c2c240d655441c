// Headless Chromium for browser tests, with every request to another host
// aborted and recorded: a page that needs the internet fails visibly.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
}

export interface OfflinePage {
  context: BrowserContext;
  page: Page;
  /** Requests to anything but this machine, which were aborted. */
  external: string[];
  /** Page errors, console errors and failed requests. */
  problems: string[];
}

export async function openOfflinePage(browser: Browser): Promise<OfflinePage> {
  const context = await browser.newContext();
  const external: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || ['127.0.0.1', 'localhost'].includes(url.hostname)) return route.continue();
    external.push(url.href);
    return route.abort();
  });
  const problems: string[] = [];
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (request) => problems.push(`requestfailed: ${request.url()}`));
  return { context, page, external, problems };
}
