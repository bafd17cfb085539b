/**
 * The usage page in real headless Chromium (Debian's `chromium`, driven by playwright-core): it asks
 * for the key, keeps it in sessionStorage, fetches /v1/usage and draws the chart. A screenshot of the
 * chart's box must hold coloured bar pixels. Set SQA_SCREENSHOT_DIR to keep the PNGs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import { usageRoutes } from '../../src/http/routes/usage.js';
import { charge, miniApp, silentLog, testEnv, type TestEnv } from '../accounts/helpers.js';

// Browser globals used inside page.evaluate (the project compiles without the DOM lib).
declare const sessionStorage: { getItem(key: string): string | null };
declare const createImageBitmap: (blob: unknown) => Promise<{ width: number; height: number }>;
declare const OffscreenCanvas: new (w: number, h: number) => {
  getContext(kind: '2d'): { drawImage(img: unknown, x: number, y: number): void; getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
};

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = fs.existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;

describe('usage page in headless Chromium', { skip }, () => {
  let env: TestEnv;
  let gate: AccountsGate;
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  let key: string;
  let clock = Date.now();
  const realNow = Date.now();

  before(async () => {
    env = await testEnv('sqlite', { env: { STRUCTQA_MONTHLY_ALLOWANCE: '2000000' } });
    gate = await createGate(env.config, silentLog, { bootstrap: false, clock: () => clock });
    const created = await gate.createKey('erin', { create: true });
    key = created.key;
    const acct = await gate.authenticate(`Bearer ${key}`);
    // Usage on several days of this month, on two models.
    const start = Date.UTC(new Date(realNow).getUTCFullYear(), new Date(realNow).getUTCMonth(), 1);
    let i = 0;
    for (let t = start + 3_600_000; t <= realNow; t += 86_400_000) {
      clock = t;
      for (const [model, tokens] of [['core-0.3.20', 20_000 + 7_000 * (i % 5)], ['core-multilingual-0.3.20', 9_000 + 3_000 * (i % 3)]] as const) {
        const adm = await gate.admit(acct, { processedTokens: tokens });
        await adm.commit(charge(`r${i}-${model}`, tokens, model));
      }
      i++;
    }
    clock = realNow;
    app = miniApp();
    await app.register(usageRoutes, { gate });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await gate?.close();
    await env?.cleanup();
  });

  it('asks for the key, shows allowance/used/remaining/reset and draws the chart', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(base)) external.push(r.url());
    });
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') cspErrors.push(m.text());
    });
    await page.goto(`${base}/app/usage`);
    await page.waitForSelector('#login:not([hidden])');

    // A wrong key: the error is shown, the form stays.
    await page.fill('#key', 'tsk_0123456789abcdef');
    await page.click('#go');
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.textContent('#error') ?? '', /separate/);

    await page.fill('#key', key);
    await page.click('#go');
    await page.waitForSelector('#report:not([hidden])');
    await page.waitForSelector('#chart svg rect.bar-seg');

    const u = await gate.usage(await gate.authenticate(`Bearer ${key}`));
    const text = (id: string) => page.textContent(id).then((t) => (t ?? '').replace(/\D/g, ''));
    assert.equal(await text('#allowance'), String(u.allowance));
    assert.equal(await text('#used'), String(u.used));
    assert.equal(await text('#remaining'), String(u.remaining));
    assert.match((await page.textContent('#resets')) ?? '', new RegExp(u.resets_at.slice(0, 10) + ' 00:00 UTC'));
    assert.equal(await page.locator('#models tr').count(), 2);
    assert.equal(await page.locator('#chart rect.bar-seg').count(), u.by_day.length * 2);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('structqa.apiKey')), key);

    // Screenshot of the chart box: coloured (bar) pixels must be there.
    const box = page.locator('#chart');
    const png = await box.screenshot();
    const dir = process.env.SQA_SCREENSHOT_DIR;
    if (dir) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'usage-chart.png'), png);
      fs.writeFileSync(path.join(dir, 'usage-page.png'), await page.screenshot({ fullPage: true }));
    }
    const decoder = await browser.newPage(); // about:blank: outside the page's CSP
    const counts = await decoder.evaluate(async (b64) => {
      const img = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
      const c = new OffscreenCanvas(img.width, img.height);
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, img.width, img.height).data;
      let coloured = 0;
      let blue = 0;
      let orange = 0;
      for (let i = 0; i < d.length; i += 4) {
        const [r, g, bl] = [d[i]!, d[i + 1]!, d[i + 2]!];
        if (Math.max(r, g, bl) - Math.min(r, g, bl) > 60) coloured++;
        if (Math.abs(r - 0x2f) < 20 && Math.abs(g - 0x6f) < 20 && Math.abs(bl - 0xdf) < 20) blue++;
        if (Math.abs(r - 0xe0) < 20 && Math.abs(g - 0x7b) < 20 && Math.abs(bl - 0x39) < 20) orange++;
      }
      return { w: img.width, h: img.height, coloured, blue, orange };
    }, png.toString('base64'));
    await decoder.close();
    assert.ok(counts.w > 300 && counts.h > 100, JSON.stringify(counts));
    assert.ok(counts.blue > 200, `first model's bars: ${JSON.stringify(counts)}`);
    assert.ok(counts.orange > 100, `second model's bars: ${JSON.stringify(counts)}`);

    // The key survives a reload of the tab (sessionStorage) and "Forget key" drops it.
    await page.reload();
    await page.waitForSelector('#chart svg rect.bar-seg');
    await page.click('#forget');
    await page.waitForSelector('#login:not([hidden])');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('structqa.apiKey')), null);
    assert.deepEqual(external, []);
    assert.deepEqual(cspErrors.filter((e) => /Content Security Policy/i.test(e)), []);
    await page.close();
  });

  it('a new browser tab (new session) asks for the key again', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/app/usage`);
    await page.waitForSelector('#login:not([hidden])');
    await ctx.close();
  });
});
