/**
 * /docs in a real browser: headless Chromium (no network beyond the local API)
 * renders the Redoc reference and lists the operations. Needs /usr/bin/chromium
 * (.ci/run installs it); without it the test is skipped with a message.
 * Screenshot: test-results/docs.png (git-ignored).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { ROUTES } from '../../src/http/routes';
import { startApi, type TestApi } from '../support/harness';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `docs-browser: ${CHROMIUM} not found, skipping the browser test of /docs (apt-get install chromium; .ci/run does)`,
  );
}
const describeWithBrowser = hasChromium ? describe : describe.skip;

const SCREENSHOT = path.join(__dirname, '..', '..', 'test-results', 'docs.png');

describeWithBrowser('GET /docs in headless Chromium', () => {
  let api: TestApi;
  let browser: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    api = await startApi();
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-chromium-'));
    // A fresh profile per run; playwright takes it as launchPersistentContext's userDataDir (--user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 1400, height: 1000 },
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it('renders every operation of the route table', async () => {
    const page = await browser.newPage();
    const external = (url: string): boolean => !url.startsWith(api.baseUrl) && !/^(blob|data):/.test(url);
    const answered: string[] = [];
    const blocked: string[] = [];
    const pageErrors: string[] = [];
    page.on('response', (r) => {
      if (external(r.url())) answered.push(r.url());
    });
    page.on('requestfailed', (r) => blocked.push(r.url()));
    page.on('pageerror', (e) => pageErrors.push(String(e)));

    const response = await page.goto(`${api.baseUrl}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);

    // Redoc renders each operation as an h2 in the middle panel (and a side-menu entry, collapsed per tag).
    const heading = (name: string) =>
      page
        .locator('h2')
        .filter({ hasText: new RegExp(`^\\s*${name}\\s*$`) })
        .first();
    await heading('List applications').waitFor({ state: 'visible', timeout: 30_000 });
    await heading('Show a location').waitFor({ state: 'visible', timeout: 30_000 });
    await heading('Show a location').scrollIntoViewIfNeeded();

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    const headings = (await page.locator('h2').allInnerTexts()).map((t) => t.trim());
    for (const route of ROUTES) {
      expect({ summary: route.summary, listed: headings.includes(route.summary) }).toEqual({
        summary: route.summary,
        listed: true,
      });
    }
    expect(await page.title()).toContain('HR API');
    expect(pageErrors).toEqual([]);
    // Nothing came from another origin: no CDN, no fonts. (Redoc's footer logo on cdn.redoc.ly
    // is blocked by the page's Content-Security-Policy before it reaches the network.)
    expect(answered).toEqual([]);
    await page.close();
  }, 90_000);
});
