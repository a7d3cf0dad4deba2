// Shared by the end-to-end flows: the browser (Debian's chromium, driven by playwright-core
// from web/node_modules), a context that may reach only the server under test, and the
// checks every flow makes.
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

const require = createRequire(new URL('../../web/package.json', import.meta.url));
export const { chromium } = require('playwright-core');

/** The launch flags verified on this kind of machine (WebGL2 through SwiftShader). */
export const FLAGS = [
  '--headless=new', '--no-sandbox', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
];

export const BASE = process.env.MS4_URL;
assert.ok(BASE, 'MS4_URL names the server under test');

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
}

/** A context at the given size; every request that leaves the server's origin is noted,
 *  and `done` fails the flow if there was one (the page must load nothing from elsewhere). */
export async function context(browser, { width = 360, height = 740, geo = null } = {}) {
  const ctx = await browser.newContext({
    viewport: { width, height },
    ...(geo ? { geolocation: geo, permissions: ['geolocation'] } : {}),
  });
  const origin = new URL(BASE).origin;
  const outside = [];
  // Watched, not routed: routing would take requests away from the page's service worker.
  const watch = (r) => {
    const u = r.url();
    if (!(u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:'))) outside.push(u);
  };
  ctx.on('request', watch);
  ctx.on('serviceworker', (w) => w.on?.('request', watch));
  ctx.outside = outside;
  // What the page's Content-Security-Policy refused: the page must work within it.
  ctx.cspRefused = [];
  await ctx.exposeBinding('__ms4CspRefused', (_source, v) => { ctx.cspRefused.push(v); });
  await ctx.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => {
    window.__ms4CspRefused(`${e.effectiveDirective} ${e.blockedURI || e.sample}`);
  }));
  return ctx;
}

export async function open(ctx, path = '/') {
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(BASE + path);
  await mapIdle(page);
  return page;
}

/** Waits until the map has loaded its style and every tile in view. */
export async function mapIdle(page, timeout = 30000) {
  await page.waitForFunction(
    () => window.__ms4map && window.__ms4map.loaded() && window.__ms4map.areTilesLoaded(),
    null,
    { timeout },
  );
}

/** How many distinct colours the map's pixels hold, from a screenshot of the map alone:
 *  a blank canvas (or background only) has one or two. */
export async function mapColours(page, shot) {
  const buf = await page.locator('#map canvas').screenshot({ path: shot });
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = new OffscreenCanvas(img.width, img.height);
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, img.width, img.height).data;
    const seen = new Map();
    for (let i = 0; i < d.length; i += 4) {
      const k = (d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | (d[i + 2] >> 3);
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    const total = d.length / 4;
    // Colours covering at least 0.05% of the map: drawn features, not antialiasing noise.
    const big = [...seen.values()].filter((n) => n >= total * 0.0005).length;
    const background = Math.max(...seen.values()) / total;
    return { colours: big, background };
  }, buf.toString('base64'));
}

/** The map shows drawn layers: several colours, and the background is not all of it. */
export async function assertMapDrawn(page, shot) {
  const { colours, background } = await mapColours(page, shot);
  assert.ok(colours >= 4 && background < 0.97, `the map looks blank: ${colours} colours, background ${(background * 100).toFixed(1)}% (${shot})`);
  return { colours, background };
}

/** The page never scrolls sideways. */
export async function assertNoSideScroll(page) {
  const w = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(w[0] <= w[1], `horizontal scroll: content ${w[0]} px wide in a ${w[1]} px window`);
}

export async function api(path, init = {}) {
  const res = await fetch(BASE + path, init);
  const body = await res.json();
  return { status: res.status, body };
}

export function done(ctx, page) {
  assert.deepEqual(ctx.outside, [], 'requests left the server\'s origin');
  assert.deepEqual(ctx.cspRefused, [], 'the page did something its Content-Security-Policy refuses');
  assert.deepEqual(page.errors, [], 'the page threw');
}

export const SHOTS = process.env.MS4_SHOTS || '.';
export { assert };
