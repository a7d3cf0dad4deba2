// A day of field work on a 360x740 phone. A full dry-weather screening, recorded the day
// after, with every field the form offers: the server keeps every one, the annual report
// counts the outfall as screened in dry weather, and the suspect characterisation opens
// a case. A second inspection of the same outfall that day is a record of its own. Then
// the token is revoked with two inspections waiting on the device: they are kept, marked,
// an online save keeps its form as typed, and after a new sign-in all of them arrive
// exactly once. Last, one the server refuses is kept with a way to fix it, and arrives
// once fixed.
import { execFileSync } from 'node:child_process';
import { launch, context, open, assertNoSideScroll, done, api, SHOTS, assert } from './lib.mjs';

const ID = 'OF-000002';
const of = (await api(`/collections/outfalls/items/${ID}`)).body;
const [lon, lat] = of.geometry.coordinates;
const pad = (n) => String(n).padStart(2, '0');
const yesterday = (() => {
  const d = new Date(Date.now() - 86400000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
})();
const inspectionsOf = async (id) => (await api(`/api/assets/${id}/inspections`)).body.inspections;

/** A value for each field the form offers, in its range and choices, as a screening of
 *  a flowing outfall with sewage signs: every field is filled. */
async function fillEverything(page) {
  const fields = await page.$$eval('#inspection-form [name]', (els) => els.map((e) => ({
    name: e.name, tag: e.tagName, type: e.type, min: e.min, max: e.max,
    options: e.tagName === 'SELECT' ? [...e.options].map((o) => o.value) : [],
  })));
  const chosen = {
    result: 'fail', 'screening.flow': 'trickle', 'screening.characterisation': 'suspect',
    'screening.conveyance': 'closed_pipe', 'screening.submerged': 'partly',
    'screening.odour': 'sewage', 'screening.colour': 'grey', 'screening.turbidity': 'cloudy',
    'screening.floatables': 'suds', 'screening.deposits': 'staining', 'screening.abnormal_vegetation': 'excessive',
    'screening.poor_pool_quality': 'odours', 'screening.benthic_growth': 'brown', 'screening.damage': 'spalling',
    'screening.material': 'RCP', 'screening.shape': 'circular', 'screening.hours_since_rain': '96',
    'screening.lab_sample.sample_id': 'LAB-26-001', 'screening.lab_sample.laboratory': 'State lab',
    inspector: 'Ann Field', inspected_on: yesterday, time: '07:45', notes: 'grey water, sewage odour',
  };
  const filled = {};
  for (const f of fields) {
    // Not found and not reached say no flow was seen: the second inspection's.
    if (f.name === 'screening.not_found' || f.name === 'screening.not_accessible') continue;
    let v = chosen[f.name];
    if (f.type === 'checkbox') {
      await page.check(`[name="${f.name}"]`);
      filled[f.name] = true;
      continue;
    }
    if (v === undefined) {
      if (f.tag === 'SELECT') v = f.options[2] ?? f.options[f.options.length - 1];
      else if (f.type === 'number') v = String(f.min !== '' && f.max !== '' ? Math.min(Number(f.max), Number(f.min) + 1.5) : 2.5);
      else v = 'x';
    }
    if (f.tag === 'SELECT') await page.selectOption(`[name="${f.name}"]`, v);
    else if (f.type !== 'file') await page.fill(`[name="${f.name}"]`, v);
    filled[f.name] = v;
  }
  return filled;
}

/** The value at an API path of an inspection as the server answers it. */
function at(insp, path) {
  const [head, ...rest] = path.split('.');
  let o = head === 'screening' ? insp.findings : insp[head];
  for (const p of rest) o = o?.[p];
  return o;
}

const browser = await launch();
try {
  const ctx = await context(browser, { geo: { longitude: lon, latitude: lat } });
  await ctx.addInitScript((t) => { if (!sessionStorage.getItem('ms4.token')) sessionStorage.setItem('ms4.token', t); }, process.env.MS4_TOKEN_FIELD);
  const page = await open(ctx);
  await page.click('#near-me');
  await page.waitForFunction(() => document.body.dataset.drawn === 'nearby');
  await page.click(`#nearby button[data-asset="${ID}"]`);
  await page.waitForSelector(`#card h2:text("${ID}")`);

  // 1. The full screening, recorded the day after.
  await page.click('#record');
  const filled = await fillEverything(page);
  assert.ok(Object.keys(filled).length >= 45, `every field: ${Object.keys(filled).length}`);
  await page.screenshot({ path: `${SHOTS}/fieldwork-form.png`, fullPage: true });
  await page.click('#save-inspection');
  await page.waitForSelector('#card-saved.saved');
  await assertNoSideScroll(page);
  await page.screenshot({ path: `${SHOTS}/fieldwork-saved.png` });
  const first = (await inspectionsOf(ID)).filter((i) => i.inspected_on === yesterday);
  assert.equal(first.length, 1, JSON.stringify(first));
  const s = first[0];
  // Every field typed is what the server keeps.
  for (const [name, v] of Object.entries(filled)) {
    if (name === 'time') continue;
    const kept = name.endsWith('.severity') ? at(s, name) : (typeof at(s, name) === 'object' && at(s, name) !== null ? at(s, name).kind : at(s, name));
    const want = typeof v === 'boolean' ? v : /^-?[\d.]+$/.test(v) && name !== 'inspected_on' ? Number(v) : v;
    assert.deepEqual(kept, want, `${name}: ${JSON.stringify(kept)} for ${JSON.stringify(v)}`);
  }
  assert.equal(s.hours_since_rain, 96);
  assert.equal(s.dry_weather, true);
  assert.equal(s.characterisation, 'suspect');
  assert.equal(new Date(s.observed_at).getTime(), new Date(`${yesterday}T07:45`).getTime(), s.observed_at);

  // The annual report counts the outfall as screened in dry weather.
  const y = Number(yesterday.slice(0, 4));
  let report = null;
  for (const year of [y, y - 1]) {
    const r = (await api(`/api/report?year=${year}`)).body;
    if (r.period.from <= yesterday && yesterday <= r.period.to) report = r;
  }
  assert.ok(report, 'a reporting year holds the day');
  const screened = report.counts.find((c) => c.measure === 'outfalls_screened');
  assert.ok(screened.records.includes(ID), JSON.stringify(screened));
  assert.ok(screened.count >= 1);
  // The suspect screening opened a case, naming the inspection.
  const cases = (await api('/api/cases')).body.cases;
  const opened = cases.find((c) => c.inspection_id === s.inspection_id);
  assert.ok(opened, `a case for ${s.inspection_id}: ${JSON.stringify(cases.map((c) => [c.case_id, c.inspection_id]))}`);
  assert.equal(opened.asset_id, ID);

  // 2. A second inspection that day: not found this time. Both are kept.
  await page.click('#record');
  await page.selectOption('[name="result"]', 'needs_follow_up');
  await page.fill('[name="inspected_on"]', yesterday);
  await page.check('[name="screening.not_found"]');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('card-saved')?.textContent.startsWith('Saved:') && !document.getElementById('inspection-form'));
  const both = (await inspectionsOf(ID)).filter((i) => i.inspected_on === yesterday);
  assert.equal(both.length, 2, JSON.stringify(both));
  assert.notEqual(both[0].inspection_id, both[1].inspection_id);
  assert.deepEqual(both.map((i) => i.result).sort(), ['fail', 'needs_follow_up']);

  // 3. The token is revoked while two inspections wait on the device.
  const before = (await api('/collections/inspections/items?limit=1')).body.numberMatched;
  await ctx.setOffline(true);
  for (const result of ['pass', 'fail']) {
    await page.click('#record');
    await page.selectOption('[name="result"]', result);
    await page.fill('[name="screening.hours_since_rain"]', '50');
    await page.click('#save-inspection');
    await page.waitForFunction(() => document.getElementById('card-saved')?.textContent.startsWith('Saved on this device'));
  }
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '2');
  execFileSync(process.env.MS4_BIN, ['--store', process.env.MS4_STORE, 'token', 'revoke', process.env.MS4_REVOKE_ID]);
  await ctx.setOffline(false);
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await page.waitForSelector('#queue-signin');
  assert.match(await page.textContent('#queue-signin'), /2 kept until you sign in again/);
  assert.equal(await page.getAttribute('#queue-status', 'data-waiting'), '2', 'nothing dropped');
  assert.equal(await page.locator('#queue-status button:text("Discard")').count(), 0);
  // The refusal in the header is readable: at least 4.5:1 against what is behind it.
  const ratio = await page.$eval('#queue-signin', (el) => {
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
    let bg = getComputedStyle(el).backgroundColor;
    for (let e = el; e && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); e = e.parentElement) bg = getComputedStyle(e).backgroundColor;
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(rgb(bg))].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  });
  assert.ok(ratio >= 4.5, `header refusal contrast ${ratio.toFixed(2)}:1`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SHOTS}/fieldwork-signin-needed.png` });

  // An online save with the revoked token keeps its form as typed.
  await page.click('#record');
  await page.selectOption('[name="result"]', 'pass');
  await page.fill('[name="notes"]', 'typed before the sign-in ran out');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.querySelector('#inspection-form .form-error')?.textContent.includes('Sign in again'));
  assert.equal(await page.inputValue('[name="notes"]'), 'typed before the sign-in ran out');
  assert.equal(await page.inputValue('[name="result"]'), 'pass');
  assert.equal((await api('/collections/inspections/items?limit=1')).body.numberMatched, before, 'nothing written with the revoked token');

  // Signed in again: everything waiting arrives, each once.
  await page.click('#signout');
  await page.fill('#token', process.env.MS4_TOKEN_FIELD_AGAIN);
  await page.click('#signin button[type=submit]');
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '0', null, { timeout: 15000 });
  const after = (await api('/collections/inspections/items?limit=1000')).body;
  assert.equal(after.numberMatched, before + 3, 'the two queued and the one kept in its form, once each');
  const keys = after.features.map((f) => f.properties.idempotency_key).filter(Boolean);
  assert.equal(new Set(keys).size, keys.length, 'no key twice');
  assert.equal(await page.locator('#queue-signin').count(), 0);
  await page.screenshot({ path: `${SHOTS}/fieldwork-sent.png` });

  // 4. One recorded offline that the server refuses (an odour where nothing flows: only
  // the server judges it) is kept with a way to fix it, not only to discard it.
  await page.click('#near-me');
  await page.waitForFunction(() => document.body.dataset.drawn === 'nearby');
  await page.click(`#nearby button[data-asset="${ID}"]`);
  await page.waitForSelector(`#card h2:text("${ID}")`);
  await ctx.setOffline(true);
  await page.click('#record');
  await page.selectOption('[name="result"]', 'fail');
  await page.selectOption('[name="screening.flow"]', 'none');
  await page.fill('[name="screening.odour"]', 'sewage');
  await page.fill('[name="notes"]', 'kept through a refusal');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '1');
  await ctx.setOffline(false);
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await page.waitForSelector('#queue-status [data-refused] button.fix');
  await page.click('#queue-status [data-refused] button.fix');
  await page.waitForFunction(() => document.getElementById('f-screening-odour-error')?.textContent !== '');
  assert.match(await page.textContent('#f-screening-odour-error'), /flow is none/);
  assert.equal(await page.inputValue('[name="notes"]'), 'kept through a refusal');
  await page.selectOption('[name="screening.flow"]', 'trickle');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('card-saved')?.textContent.startsWith('Saved:') && !document.getElementById('inspection-form'));
  await page.waitForFunction(() => !document.querySelector('#queue-status [data-refused]'));
  const fixed = (await inspectionsOf(ID)).filter((i) => i.notes === 'kept through a refusal');
  assert.equal(fixed.length, 1, 'sent once, fixed');
  assert.equal(fixed[0].findings.flow, 'trickle');
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('fieldwork flow ok');
