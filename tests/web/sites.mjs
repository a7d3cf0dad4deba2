// Issue 28 in the page, on a Carmel registry: the officer opens a site from a
// determination meeting Condition One and records the gauge's daily rainfall (a 0.5-inch
// storm yesterday), through the API; the inspector, signed in on a tablet (1024x768),
// opens Officer → Sites, sees the storm's inspection due within 24 hours (§ 156-83B),
// opens the site's card, is refused an inspection that does not say who made it (the
// refusal beside the role's field), records it in the site inspection form, and sees the
// storm's inspection met and no longer due. Each step is checked against the API's answer.
import { launch, context, open, assertNoSideScroll, done, BASE, SHOTS, assert } from './lib.mjs';

const OFFICER = process.env.MS4_TOKEN_OFFICER;
const INSPECTOR = process.env.MS4_TOKEN_INSPECTOR;
assert.ok(OFFICER && INSPECTOR, 'MS4_TOKEN_OFFICER and MS4_TOKEN_INSPECTOR name the tokens');
async function api(path, init = {}, token = OFFICER) {
  const headers = { Authorization: `Bearer ${token}`, ...(init.json ? { 'Content-Type': 'application/json' } : {}), ...init.headers };
  const res = await fetch(BASE + path, { ...init, headers, body: init.json ? JSON.stringify(init.json) : init.body });
  const text = await res.text();
  let body = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body };
}
/** A day counted from today, `YYYY-MM-DD`, as the server counts days. */
const day = (offset) => new Date(Date.now() + offset * 86400000).toISOString().slice(0, 10);
async function said(page, before) {
  await page.waitForFunction((b) => document.getElementById('message').textContent !== b, before);
  return page.evaluate(() => ({ text: document.getElementById('message').textContent, error: document.getElementById('message').className === 'error' }));
}
const message = (page) => page.textContent('#message');
const stormOf = (schedule) => schedule.duties.find((d) => /within 24 hours of the storm/.test(d.what));

// The determination as `ms4 determine --format json` answers it for a project meeting
// Condition One (a pollutant of concern discharged to an impaired water): stored as answered.
const determination = {
  parcel: null,
  receiving_waters: {},
  determination: {
    jurisdiction: 'carmel-ny',
    land_development_activity: { result: true, evidence: [{ kind: 'measure', what: 'disturbed_area', value: 87120, unit: 'sqft', of: 'the project' }] },
    conditions: { condition_one: { result: true }, condition_two: { result: false }, condition_three: { result: false } },
    requirements: [{ result: { kind: 'construction_inspections', status: 'applies' } }],
    open_facts: [],
  },
};
const footprint = { type: 'Polygon', coordinates: [[[-73.75, 41.40], [-73.748, 41.40], [-73.748, 41.402], [-73.75, 41.402], [-73.75, 41.40]]] };

let r = await api('/api/sites', { method: 'POST', json: { opened_on: day(-10), name: 'Seven Oaks subdivision', determination, footprint, rain_gauge: 'CARMEL-1', qualified_inspector: 'Pat Inspector, CPESC' } });
assert.equal(r.status, 201, JSON.stringify(r.body));
const id = r.body.site_id;
for (const [kind, on] of [['approved', day(-9)], ['started', day(-7)]]) {
  r = await api(`/api/sites/${id}/actions`, { method: 'POST', json: { kind, on, by: 'Town of Carmel SMO' } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}
// The gauge's week: dry, then 0.55 inch yesterday.
const entries = [-7, -6, -5, -4, -3, -2, -1].map((o) => ({ gauge_id: 'CARMEL-1', day: day(o), inches: o === -1 ? 0.55 : 0 }));
r = await api('/api/rainfall', { method: 'POST', json: { entries }, headers: { 'Idempotency-Key': `rain-${day(0)}` } });
assert.equal(r.status, 201, JSON.stringify(r.body));
r = await api('/api/sites/due');
let storm = stormOf(r.body.sites.find((s) => s.site_id === id));
assert.ok(storm, JSON.stringify(r.body));
assert.equal(storm.status, 'due', JSON.stringify(storm));
assert.equal(storm.citation, '§ 156-83B');
// Within 24 hours of the storm's end (the end of yesterday).
assert.equal(storm.due_at.slice(0, 10), day(1), JSON.stringify(storm));

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1024, height: 768 });
  await ctx.addInitScript((t) => sessionStorage.setItem('ms4.token', t), INSPECTOR);
  const page = await open(ctx);
  assert.equal(await page.textContent('#role'), 'inspector-1 (inspector)');
  await page.click('#tabs [data-view="officer"]');
  await page.click('#officer-sections [data-section="sites"]');
  await page.waitForSelector(`#site-due-list button[data-site="${id}"]`);
  const due = Number(await page.getAttribute('#site-due-count', 'data-due'));
  assert.equal(due, (await api('/api/sites/due')).body.due, 'the page counts what the API counts');

  // The card: the storm's inspection due, with its citation.
  await page.click(`#site-due-list button[data-site="${id}"]`);
  await page.waitForSelector(`#site-title[data-site="${id}"]`);
  const stormRow = page.locator('#site-card table tr', { hasText: 'within 24 hours of the storm of 0.55 inch at gauge CARMEL-1' });
  assert.equal(await stormRow.locator('[data-duty-status]').getAttribute('data-duty-status'), 'due');
  assert.match(await stormRow.textContent(), /§ 156-83B/);

  // The form is the definition's: its inspection fields, named by their API paths.
  for (const name of ['on', 'at', 'by', 'role', 'practices[0].practice', 'practices[0].condition', 'practices[0].filled_percent', 'deficiencies[0].corrective_action', 'disturbed_sqft', 'soil_disturbance', 'corrected', 'notes']) {
    assert.equal(await page.locator(`#site-inspection-form [name="${name}"]`).count(), 1, `the form has ${name}`);
  }
  await page.fill('#site-inspection-form [name="by"]', 'Pat Inspector, CPESC');
  await page.fill('#site-inspection-form [name="practices[0].practice"]', 'silt fence');
  await page.fill('#site-inspection-form [name="practices[0].condition"]', 'effective');
  await page.fill('#site-inspection-form [name="practices[1].practice"]', 'sediment trap 1');
  await page.fill('#site-inspection-form [name="practices[1].condition"]', 'needs cleaning');
  await page.fill('#site-inspection-form [name="practices[1].filled_percent"]', '40');
  await page.check('#site-inspection-form [name="soil_disturbance"]');

  // Without who made it: refused, the refusal beside the role.
  let before = await message(page);
  await page.click('#site-inspection-save');
  let m = await said(page, before);
  assert.equal(m.error, true, m.text);
  assert.match(m.text, /^Refused \(role\)/);
  assert.match(await page.textContent('#site-inspection-form [data-error-for="role"]'), /who made it/);
  let site = (await api(`/api/sites/${id}`)).body;
  assert.equal(site.actions.filter((a) => a.kind === 'inspection').length, 0, 'nothing was written');

  await page.selectOption('#site-inspection-form [name="role"]', 'qualified_inspector');
  before = await message(page);
  await page.click('#site-inspection-save');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  assert.match(m.text, new RegExp(`Recorded the inspection of ${id}`));
  await page.screenshot({ path: `${SHOTS}/sites-inspected.png` });

  // Stored as typed, and the storm's inspection met: no longer due.
  site = (await api(`/api/sites/${id}`)).body;
  const logged = site.actions.filter((a) => a.kind === 'inspection');
  assert.equal(logged.length, 1, JSON.stringify(site.actions));
  assert.equal(logged[0].role, 'qualified_inspector');
  assert.equal(logged[0].by, 'Pat Inspector, CPESC');
  assert.equal(logged[0].recorded_by, 'inspector-1');
  assert.equal(logged[0].soil_disturbance, true);
  assert.deepEqual(logged[0].practices, [
    { practice: 'silt fence', condition: 'effective' },
    { practice: 'sediment trap 1', condition: 'needs cleaning', filled_percent: 40 },
  ]);
  storm = stormOf((await api('/api/sites/due')).body.sites.find((s) => s.site_id === id));
  assert.equal(storm.status, 'met', JSON.stringify(storm));
  await page.waitForFunction(() => [...document.querySelectorAll('#site-card table tr')].some((tr) => /of the storm of 0\.55 inch/.test(tr.textContent) && tr.querySelector('[data-duty-status="met"]')));
  assert.equal(Number(await page.getAttribute('#site-due-count', 'data-due')), (await api('/api/sites/due')).body.due);
  await assertNoSideScroll(page);
  done(ctx, page);
} finally {
  await browser.close();
}
