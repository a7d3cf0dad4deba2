// The stormwater officer's cases on a registry that is not public-read, signed in with an
// officer's token, at a desk (1280x900): a case opened from a suspect screening, an action
// refused for an office the law does not name (the refusal names `by`) and the error gone
// once the next action is logged, a notice of violation with its deadline, the notice
// printed with the orders chosen, what is due and overdue, the case closed as eliminated;
// a case by hand, cases from connections, and the year's report with its CSV. Each step
// is checked against the API's own answer.
import { readFile } from 'node:fs/promises';
import { launch, context, open, assertMapDrawn, assertNoSideScroll, done, BASE, SHOTS, assert } from './lib.mjs';

const TOKEN = process.env.MS4_TOKEN_OFFICER;
assert.ok(TOKEN, 'MS4_TOKEN_OFFICER names an officer token');
const auth = { Authorization: `Bearer ${TOKEN}` };
async function api(path, init = {}) {
  const res = await fetch(BASE + path, { ...init, headers: { ...auth, ...(init.json ? { 'Content-Type': 'application/json' } : {}), ...init.headers }, body: init.json ? JSON.stringify(init.json) : init.body });
  const text = await res.text();
  let body = text;
  try { body = JSON.parse(text); } catch { /* HTML or CSV */ }
  return { status: res.status, body, headers: res.headers };
}
const day = (offset) => {
  const d = new Date(Date.now() + offset * 86400000);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
};
/** Waits for the page's message line to say something new; returns it and whether it is an error. */
async function said(page, before) {
  await page.waitForFunction((b) => document.getElementById('message').textContent !== b, before);
  return page.evaluate(() => ({ text: document.getElementById('message').textContent, error: document.getElementById('message').className === 'error' }));
}
const message = (page) => page.textContent('#message');

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1280, height: 900 });
  await ctx.addInitScript((t) => sessionStorage.setItem('ms4.token', t), TOKEN);
  const page = await open(ctx);
  assert.equal(await page.textContent('#role'), 'officer-1 (officer)');
  await page.click('#tabs [data-view="officer"]');
  await page.click('#officer-sections [data-section="cases"]');
  await page.waitForSelector('#case-count');

  // A suspect screening (sewage seen at an outfall), recorded as the inspector would.
  const screening = await api('/api/inspections', { method: 'POST', json: { asset_id: 'OF-000002', inspected_on: day(-40), kind: 'dry_weather_screening', result: 'fail', screening: { flow: 'moderate', odour: 'sewage' }, notes: 'sewage odour at the outfall' } });
  assert.equal(screening.status, 201, JSON.stringify(screening.body));
  const inspectionId = screening.body.inspection.inspection_id;

  // Opened from the screening's row.
  await page.click('#list-screenings');
  await page.waitForSelector(`button[data-screening="${inspectionId}"]`);
  await page.fill('#case-opened-on', day(-39));
  let before = await message(page);
  await page.click(`button[data-screening="${inspectionId}"]`);
  let m = await said(page, before);
  assert.equal(m.error, false, m.text);
  const caseId = await page.getAttribute('#case-title', 'data-case');
  assert.match(m.text, new RegExp(`Opened ${caseId} from screening`));
  let c = (await api(`/api/cases/${caseId}`)).body;
  assert.equal(c.origin, 'screening');
  assert.equal(c.inspection_id, inspectionId);
  assert.equal(c.asset_id, 'OF-000002');
  assert.equal(c.opened_on, day(-39));
  const shownCandidates = await page.$$eval('#case-detail table:first-of-type tbody tr td:nth-child(2)', (t) => t.map((x) => x.textContent));
  assert.deepEqual(shownCandidates, c.candidates.map((x) => x.connection_id), 'the case\'s candidates, ranked as the API ranks them');
  assert.ok(c.candidates.length > 0, 'the outfall has candidates upstream');
  assert.equal(await page.textContent(`#case-detail td [data-finding="${c.candidates[0].finding}"]`), c.candidates[0].finding.replace(/_/g, ' '));

  // Who the case is against: refused without a name (at the name's field), then set.
  assert.equal(c.respondent.name, null, 'a screening names no one');
  await page.selectOption('#respondent-kind', 'business');
  before = await message(page);
  await page.click('#respondent-set');
  m = await said(page, before);
  assert.equal(m.error, true);
  assert.match(await page.textContent('#respondent-form [data-error-for="name"]'), /^name: /);
  await page.fill('#respondent-name', 'Acme Laundry LLC');
  await page.fill('#respondent-basis', 'the register of businesses');
  before = await message(page);
  await page.click('#respondent-set');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  c = (await api(`/api/cases/${caseId}`)).body;
  assert.deepEqual([c.respondent.name, c.respondent.kind, c.respondent.basis], ['Acme Laundry LLC', 'business', 'the register of businesses']);
  assert.equal(m.text, `${caseId} is against Acme Laundry LLC (business).`);
  assert.match(await page.textContent('#case-respondent'), /^Against: Acme Laundry LLC \(business\)/);

  // An office the town's law does not name: refused, the refusal naming `by`, nothing logged.
  await page.selectOption('#action-kind', 'site_visit');
  await page.fill('#action-on', day(-38));
  await page.fill('#action-by', 'Dog Catcher');
  before = await message(page);
  await page.click('#action-log');
  m = await said(page, before);
  assert.equal(m.error, true, 'a refusal is an error');
  assert.match(m.text, /^Refused \(by\): by: "Dog Catcher" is not an office/);
  assert.match(await page.textContent('#action-form [data-error-for="by"]'), /Dog Catcher.*not an office/);
  assert.equal((await api(`/api/cases/${caseId}`)).body.actions.length, 0, 'nothing logged');

  // The next action succeeds (by left to the law's enforcement office): the error goes.
  await page.selectOption('#action-kind', 'dye_test');
  await page.fill('#action-by', '');
  await page.fill('#action-outcome', 'positive');
  before = await message(page);
  await page.click('#action-log');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  c = (await api(`/api/cases/${caseId}`)).body;
  assert.equal(c.actions.length, 1);
  assert.equal(m.text, `Logged dye test on ${day(-38)} by ${c.actions[0].by} in ${caseId}.`);
  assert.equal(await page.textContent('#action-form [data-error-for="by"]'), '', 'the field\'s error cleared');
  assert.equal(await page.$eval('#message', (e) => e.className), '');

  // A notice of violation served by hand, with the deadline it sets (already past).
  await page.selectOption('#action-kind', 'notice_of_violation');
  await page.fill('#action-on', day(-30));
  await page.selectOption('#action-method', 'hand');
  await page.fill('#action-deadline', day(-5));
  await page.fill('#action-outcome', '');
  before = await message(page);
  await page.click('#action-log');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  await page.waitForFunction(() => document.querySelectorAll('#case-detail table')[1]?.querySelectorAll('tbody tr').length === 2);
  c = (await api(`/api/cases/${caseId}`)).body;
  const notice = c.actions.find((a) => a.kind === 'notice_of_violation');
  assert.equal(notice.deadline, day(-5));
  // The case's clocks as the API counts them.
  const clocks = await page.$$eval('#case-deadlines tbody tr', (rows) => rows.map((r) => [...r.children].map((td) => td.textContent)));
  assert.deepEqual(clocks.map((r) => [r[0], r[1], r[2]]), c.deadlines.deadlines.map((d) => [d.what, d.due_at ?? d.due_on ?? '—', d.status.replace(/_/g, ' ')]));
  assert.ok(c.deadlines.deadlines.some((d) => d.status === 'overdue' && d.due_on === day(-5)), 'the notice\'s deadline is overdue');

  // The notice printed with the orders and deadline chosen, as the API writes it.
  await page.check('#notice-orders input[data-order="elimination"]');
  await page.check('#notice-orders input[data-order="abatement"]');
  await page.fill('#notice-deadline', day(20));
  before = await message(page);
  await page.click('#notice-print');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  await page.waitForSelector('#notice-view .notice-paper');
  const html = (await api(`/api/cases/${caseId}/notice?orders=elimination,abatement&deadline=${day(20)}`)).body;
  const orders = [...html.matchAll(/<li data-order="([a-z_]+)"/g)].map((x) => x[1]);
  assert.deepEqual(orders, ['elimination', 'abatement']);
  assert.deepEqual(await page.$$eval('#notice-view li[data-order]', (l) => l.map((x) => x.dataset.order)), orders);
  const paper = await page.textContent('#notice-view .notice-paper');
  assert.ok(paper.includes(day(20)), 'the notice states the deadline chosen');
  assert.ok(paper.includes(caseId));
  await page.locator('#notice-view').screenshot({ path: `${SHOTS}/cases-notice.png` });
  // Printed, the page is the notice alone.
  await page.emulateMedia({ media: 'print' });
  const printed = await page.evaluate(() => ['#tabs', '#case-title', '#map', '#notice-form', '.notice-paper h2'].map((q) => getComputedStyle(document.querySelector(q)).visibility));
  assert.deepEqual(printed, ['hidden', 'hidden', 'hidden', 'hidden', 'visible']);
  await page.emulateMedia({ media: 'screen' });
  // An order the town's list does not have: refused, naming the orders.
  const refused = await api(`/api/cases/${caseId}/notice?orders=bogus`);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.field, 'orders[0]');

  // What is due and overdue, with the fines accrued, as GET /api/deadlines says.
  await page.click('#officer-sections [data-section="deadlines"]');
  await page.waitForSelector('#deadline-summary');
  const dl = (await api('/api/deadlines')).body;
  const summary = await page.$eval('#deadline-summary', (e) => ({ due: Number(e.dataset.due), overdue: Number(e.dataset.overdue), accrued: Number(e.dataset.accrued), text: e.textContent }));
  assert.deepEqual([summary.due, summary.overdue, summary.accrued], [dl.due, dl.overdue, dl.accrued]);
  assert.ok(dl.overdue >= 1, 'the notice\'s deadline is overdue');
  assert.match(summary.text, new RegExp(`^${dl.due} due, ${dl.overdue} overdue, fines accrued \\$${dl.accrued.toFixed(2)}`));
  const mine = dl.cases.find((x) => x.case_id === caseId);
  assert.deepEqual(await page.$$eval(`#deadlines-${caseId} tbody tr td:nth-child(3)`, (t) => t.map((x) => x.textContent)), mine.deadlines.map((d) => d.status.replace(/_/g, ' ')));
  await page.screenshot({ path: `${SHOTS}/cases-deadlines.png` });

  // The case closed as eliminated.
  await page.click('#officer-sections [data-section="cases"]');
  await page.waitForSelector(`#case-list button[data-case="${caseId}"]`);
  await page.click(`#case-list button[data-case="${caseId}"]`);
  await page.waitForSelector('#close-form');
  await page.selectOption('#close-closure', 'eliminated');
  await page.fill('#close-on', day(-1));
  await page.fill('#close-notes', 'the floor drain plugged');
  before = await message(page);
  await page.click('#case-close');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  c = (await api(`/api/cases/${caseId}`)).body;
  assert.equal(c.status, 'closed');
  assert.equal(c.closure, 'eliminated');
  assert.equal(m.text, `Closed ${caseId}: eliminated on ${day(-1)}.`);
  await page.waitForSelector('#case-title[data-status="closed"]');
  assert.equal(await page.locator('#action-form').count(), 0, 'a closed case takes no more actions');
  assert.deepEqual(await page.$$eval('#case-deadlines tbody tr td:nth-child(3)', (t) => t.map((x) => x.textContent)), c.deadlines.deadlines.map((d) => d.status.replace(/_/g, ' ')));
  await page.screenshot({ path: `${SHOTS}/cases-closed.png` });

  // The section and the case ride in the link: opened again, the same case is shown.
  const caseLink = new URL(page.url());
  assert.equal(caseLink.searchParams.get('view'), 'officer');
  assert.equal(caseLink.searchParams.get('section'), 'cases');
  assert.equal(caseLink.searchParams.get('case'), caseId);
  await page.goto(caseLink.href);
  await page.waitForSelector(`#case-title[data-case="${caseId}"][data-status="closed"]`);
  assert.equal(await page.getAttribute('#officer-sections [data-section="cases"]', 'aria-pressed'), 'true');

  // A case by hand: a complaint names who made it; the refusal says so at the field.
  await page.selectOption('#case-origin', 'complaint');
  await page.fill('#case-asset', 'OF-000005');
  before = await message(page);
  await page.click('#case-open');
  m = await said(page, before);
  assert.equal(m.error, true);
  assert.match(await page.textContent('#case-open-form [data-error-for="reported_by"]'), /^reported_by: /);
  await page.fill('#case-reported-by', 'a neighbour');
  before = await message(page);
  await page.click('#case-open');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  const byHand = await page.getAttribute('#case-title', 'data-case');
  const hand = (await api(`/api/cases/${byHand}`)).body;
  assert.deepEqual([hand.origin, hand.reported_by, hand.asset_id], ['complaint', 'a neighbour', 'OF-000005']);
  assert.equal(await page.textContent('#case-open-form [data-error-for="reported_by"]'), '');

  // A case for each suspect connection no case names.
  before = await message(page);
  await page.click('#cases-from-connections');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  const all = (await api('/api/cases')).body;
  const opened = all.cases.filter((x) => x.origin === 'connection').map((x) => x.case_id);
  assert.ok(opened.length > 0);
  assert.match(m.text, new RegExp(`^Opened ${opened.length} cases`));
  await page.waitForFunction((n) => document.getElementById('case-count')?.textContent === `${n} cases`, all.count);
  assert.deepEqual(await page.$$eval('#case-list tbody tr td:first-child', (t) => t.map((x) => x.textContent)), all.cases.map((x) => x.case_id));

  // The year's report: every count as GET /api/report gives it, its records, its CSV.
  const year = new Date().getFullYear();
  await page.click('#officer-sections [data-section="report"]');
  await page.fill('#report-year', String(year));
  before = await message(page);
  await page.click('#report-show');
  m = await said(page, before);
  assert.equal(m.error, false, m.text);
  const report = (await api(`/api/report?year=${year}`)).body;
  const shown = await page.$$eval('#report-out .count', (t) => t.map((x) => [x.dataset.measure, x.textContent]));
  assert.deepEqual(shown.map(([k, v]) => [k, Number(v.split(' ')[0])]), report.counts.map((x) => [x.measure, x.count]));
  for (const x of report.counts.filter((k) => k.records.length)) {
    assert.deepEqual(await page.$$eval(`#report-out details[data-records="${x.measure}"] li`, (l) => l.map((e) => e.textContent)), x.records, `records of ${x.measure}`);
  }
  const cases = report.counts.find((x) => x.measure === 'cases_opened');
  assert.ok(cases.records.includes(caseId) || year !== Number(day(-39).slice(0, 4)), 'the case opened is counted');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#report-csv')]);
  const csv = await readFile(await download.path(), 'utf8');
  assert.equal(csv, (await api(`/api/report?year=${year}&format=csv`)).body, 'the CSV is the API\'s');
  await page.screenshot({ path: `${SHOTS}/cases-report.png` });
  console.log('report map', await assertMapDrawn(page, `${SHOTS}/cases-map.png`));

  // On a phone the report, the cases and a case's forms fit the width.
  await page.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(page);
  await page.click('#officer-sections [data-section="cases"]');
  await page.waitForSelector(`#case-list button[data-case="${byHand}"]`);
  await page.click(`#case-list button[data-case="${byHand}"]`);
  await page.waitForSelector('#action-form');
  await assertNoSideScroll(page);
  await page.click('#officer-sections [data-section="deadlines"]');
  await page.waitForSelector('#deadline-summary');
  await assertNoSideScroll(page);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('cases flow ok');
