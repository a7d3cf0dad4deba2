// Where a first visit's time goes, for looking into the page bench's first-draw figure:
// each resource's start and end, the map's style and tile events, and its renders, from
// navigation start. Not a benchmark (no figures are recorded from it).
//   node web/bench/trace.mjs http://127.0.0.1:8080 3
import { chromium } from 'playwright-core';
import { FLAGS } from './flags.mjs';
const [, , base, runsArg] = process.argv;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
for (let i = 0; i < Number(runsArg || 3); i++) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    window.__marks = [];
    const t0 = performance.now();
    const iv = setInterval(() => {
      const m = window.__ms4map;
      if (m && !window.__hooked) {
        window.__hooked = true;
        window.__marks.push(['map', performance.now()]);
        m.on('styledata', () => window.__marks.push(['styledata', performance.now()]));
        m.on('sourcedata', (e) => e.sourceId==='ms4' && e.tile && window.__marks.push(['tile ' + e.tile.tileID.canonical.z+'/'+e.tile.tileID.canonical.x+'/'+e.tile.tileID.canonical.y, performance.now()]));
        m.on('render', () => window.__marks.push(['render', performance.now()]));
      }
    }, 1);
  });
  await page.goto(base + '/');
  await page.waitForFunction(() => window.__ms4firstDraw !== undefined, null, { timeout: 60000 });
  const r = await page.evaluate(() => ({
    first: window.__ms4firstDraw,
    dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
    res: performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd), e.transferSize]),
    marks: window.__marks.map((m) => [m[0], Math.round(m[1])]),
    zoom: window.__ms4map.getZoom(),
  }));
  console.log('first', Math.round(r.first), 'dcl', Math.round(r.dcl), 'zoom', r.zoom.toFixed(2));
  for (const x of r.res) console.log('  res', ...x);
  const renders = r.marks.filter(m => m[0]==='render');
  console.log('  renders', renders.length, renders.slice(0,3).map(m=>m[1]), renders.slice(-3).map(m=>m[1]));
  for (const m of r.marks.filter(m => m[0]!=='render')) console.log('  mark', ...m);
  await ctx.close();
}
await browser.close();
