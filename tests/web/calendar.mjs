// Issue 29 in the page, on the demo: the officer records last year's annual report as
// submitted a few days after its day (`POST /api/calendar/records`), opens Officer →
// Calendar and sees the permit's programme items as `/api/calendar` answers them (the
// overdue count, the report done late by those days with its submission as evidence, a
// past certification with no submission saying how to record it, Mapping Phase I's day
// and state, the profile's readings said to be so), then Officer →
// Inspections due, narrows it to SMPs, sees the list `/api/inspections/due` answers, and
// clicks an SMP to bring the map to it. A reader is offered no form to record with;
// signed in as the officer, the past certification with no submission is recorded
// through its row's form: a day in the future is refused, the server's error beside the
// field and every typed value kept, then the day corrected, and the calendar, drawn
// again, shows it done with its submission.
import { launch, context, open, assertNoSideScroll, done, api, BASE, SHOTS, assert } from './lib.mjs';

const OFFICER = process.env.MS4_TOKEN_OFFICER;
assert.ok(OFFICER, 'MS4_TOKEN_OFFICER names the officer token');

// The annual report last due, past with no submission, recorded as submitted up to three
// days late (never after the day the server judges on).
const before = (await api('/api/calendar')).body;
const report = before.entries.find((e) => e.item === 'annual_report' && e.status === 'not_recorded');
assert.ok(report, JSON.stringify(before.entries));
const DAY = 86400000;
const late = Math.min(3, Math.round((Date.parse(before.as_of) - Date.parse(report.due_on)) / DAY));
const submittedOn = new Date(Date.parse(report.due_on) + late * DAY).toISOString().slice(0, 10);
const posted = await fetch(`${BASE}/api/calendar/records`, {
  method: 'POST',
  headers: { Authorization: `Bearer ${OFFICER}`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ item_id: 'annual_report', for_due_on: report.due_on, submitted_on: submittedOn, submitted_by: 'Town Engineer', reference: 'NOI 118' }),
});
assert.equal(posted.status, 201, await posted.text());

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1280, height: 900 });
  const page = await open(ctx);
  await page.click('#tabs [data-view="officer"]');

  // The calendar, shown as it is opened.
  await page.click('#officer-sections [data-section="calendar"]');
  await page.waitForSelector('#calendar-count');
  const cal = (await api('/api/calendar')).body;
  const overdue = cal.entries.filter((e) => e.status === 'overdue').length;
  assert.equal(await page.getAttribute('#calendar-count', 'data-overdue'), String(overdue));
  const rows = await page.$$eval('#calendar-out tbody tr', (rs) => rs.map((r) => [...r.children].map((td) => td.textContent)));
  assert.equal(rows.length, cal.entries.length);
  const mapping = cal.entries.find((e) => e.item === 'mapping_phase_1');
  assert.ok(mapping, 'the demo town has a Mapping Phase I item');
  const shown = rows.find((r) => r[0] === mapping.title);
  assert.ok(shown, JSON.stringify(rows.map((r) => r[0])));
  assert.deepEqual([shown[1], shown[2]], [mapping.due_on, mapping.status.replace(/_/g, ' ')]);
  // An item the profile reads from secondary sources says so.
  assert.equal(shown[4].endsWith("(the profile's reading)"), !mapping.confirmed, shown[4]);
  // The report: done late, by the days the API counts, its submission the evidence.
  const recorded = cal.entries.find((e) => e.item === 'annual_report' && e.due_on === report.due_on);
  assert.equal(recorded.status, late > 0 ? 'done_late' : 'done', JSON.stringify(recorded));
  const doneRow = rows.find((r) => r[0] === recorded.title && r[1] === recorded.due_on);
  assert.ok(doneRow, JSON.stringify(rows));
  assert.equal(doneRow[2], late > 0 ? `done late, ${late} days late` : 'done');
  assert.equal(doneRow[3], `annual report submitted by Town Engineer, reference NOI 118 annual_report:${report.due_on} (programme_submissions) on ${submittedOn}`);
  // A past certification with no submission: not recorded, saying how to record it.
  const unrecorded = cal.entries.find((e) => e.status === 'not_recorded');
  assert.ok(unrecorded && unrecorded.to_record, JSON.stringify(cal.entries));
  const openRow = rows.find((r) => r[0] === unrecorded.title && r[1] === unrecorded.due_on);
  assert.deepEqual([openRow[2], openRow[3]], ['not recorded', unrecorded.to_record]);
  assert.equal(await page.getAttribute('#calendar-count', 'data-late'), String(cal.entries.filter((e) => e.status === 'done_late').length));
  await page.screenshot({ path: `${SHOTS}/officer-calendar.png` });
  const facts = await page.$$eval('#calendar-open-facts li', (t) => t.map((x) => x.textContent));
  assert.deepEqual(facts, cal.open_facts.map((f) => `Open fact: ${f}`));
  // A reader may not record: no form is offered.
  assert.equal(await page.$$eval('#calendar-out button[data-record]', (b) => b.length), 0);
  assert.ok(!(await page.$$eval('#calendar-out th', (t) => t.map((x) => x.textContent))).includes('Record'));

  // The inspections due: the counts of the whole answer, then the SMPs alone.
  await page.click('#officer-sections [data-section="inspections"]');
  await page.waitForSelector('#inspections-due-count');
  const all = (await api('/api/inspections/due')).body;
  assert.equal(await page.getAttribute('#inspections-due-count', 'data-overdue'), String(all.summary.overdue));
  assert.equal(await page.getAttribute('#inspections-due-count', 'data-never'), String(all.summary.never_inspected));
  const smps = (await api('/api/inspections/due?kind=smp')).body.items;
  assert.ok(smps.length > 0, 'the demo has SMPs due');
  await page.selectOption('#inspections-kind', 'smp');
  await page.click('#inspections-due');
  await page.waitForFunction((n) => document.querySelectorAll('#inspections-due-out tbody tr').length === n && document.querySelector('#inspections-due-out tbody td')?.textContent.startsWith('SMP'), smps.length);
  const due = await page.$$eval('#inspections-due-out tbody tr', (rs) => rs.map((r) => [...r.children].map((td) => td.textContent)));
  assert.deepEqual(due.map((r) => r[0]), smps.map((s) => s.id));
  for (const [[id, kind, practice, last, next, , pe], s] of due.map((r, i) => [r, smps[i]])) {
    assert.deepEqual([kind, practice, last, next, pe], ['smp', s.priority ?? s.practice_type ?? '—', s.last_inspection ?? 'never', s.next_due ?? 'now', s.requirement.by === 'professional_engineer' ? 'PE required' : ''], `the row of ${id}`);
  }

  // A click brings the map to the asset.
  await page.click(`button[data-asset="${smps[0].id}"]`);
  await page.waitForFunction((id) => document.body.dataset.shown === id, smps[0].id);
  const onMap = await page.evaluate(() => {
    const map = window.__ms4map;
    const f = window.__ms4answer.features.find((x) => x.properties.role === 'selected');
    const b = map.getBounds();
    const flat = (c) => (typeof c[0] === 'number' ? [c] : c.flatMap(flat));
    return { id: f.properties.id, inView: flat(f.geometry.coordinates).every((p) => b.contains(p)), zoom: map.getZoom() };
  });
  assert.equal(onMap.id, smps[0].id);
  assert.ok(onMap.inView && onMap.zoom >= 14, JSON.stringify(onMap));
  await page.screenshot({ path: `${SHOTS}/officer-inspections-due.png` });
  await page.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(page);
  done(ctx, page);

  // The officer records the certification through the page.
  const desk = await context(browser, { width: 1280, height: 900 });
  await desk.addInitScript((t) => sessionStorage.setItem('ms4.token', t), OFFICER);
  const officer = await open(desk);
  await officer.click('#tabs [data-view="officer"]');
  await officer.click('#officer-sections [data-section="calendar"]');
  await officer.waitForSelector('#calendar-count');
  const key = `${unrecorded.item}:${unrecorded.due_on}`;
  // Every occurrence a submission would show done has its button, and only those.
  const offered = await officer.$$eval('#calendar-out button[data-record]', (b) => b.map((x) => x.dataset.record));
  const recordable = cal.entries.filter((e) => !e.case_id && ['due', 'overdue', 'not_recorded'].includes(e.status));
  assert.deepEqual(offered, recordable.map((e) => `${e.item}:${e.due_on}`));
  await officer.click(`#calendar-out button[data-record="${key}"]`);
  await officer.waitForSelector('#calendar-record-form');
  assert.equal(await officer.textContent('#calendar-record-title'), `Record the submission of ${unrecorded.title}, due ${unrecorded.due_on}`);

  // A day in the future: refused by the server, its error beside the field, nothing lost.
  const future = new Date(Date.parse(cal.as_of) + 10 * DAY).toISOString().slice(0, 10);
  const typed = { submitted_by: 'Stormwater Management Officer', reference: 'eNOI 55120', note: 'sent by the portal' };
  await officer.fill('#calendar-submitted-on', future);
  await officer.fill('#calendar-submitted-by', typed.submitted_by);
  await officer.fill('#calendar-reference', typed.reference);
  await officer.fill('#calendar-note', typed.note);
  const said = await officer.textContent('#message');
  await officer.click('#calendar-record-save');
  await officer.waitForFunction(() => document.querySelector('#calendar-record-form [data-error-for="submitted_on"]')?.textContent);
  // The server's own words for the same request (refused, so nothing is written).
  const refused = await api('/api/calendar/records', {
    method: 'POST',
    headers: { Authorization: `Bearer ${OFFICER}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ item_id: unrecorded.item, for_due_on: unrecorded.due_on, submitted_on: future, ...typed }),
  });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.field, 'submitted_on');
  assert.equal(await officer.textContent('#calendar-record-form [data-error-for="submitted_on"]'), refused.body.error);
  await officer.waitForFunction((b) => document.getElementById('message').textContent !== b, said);
  assert.match(await officer.textContent('#message'), /^Refused \(submitted_on\)/);
  assert.deepEqual(
    await officer.$eval('#calendar-record-form', (f) => ['submitted_on', 'submitted_by', 'reference', 'note'].map((n) => f.elements.namedItem(n).value)),
    [future, typed.submitted_by, typed.reference, typed.note],
  );
  assert.equal((await api('/api/calendar/records')).body.records.filter((r) => r.item_id === unrecorded.item && r.for_due_on === unrecorded.due_on).length, 0);
  await officer.screenshot({ path: `${SHOTS}/officer-calendar-refused.png` });

  // The day corrected: recorded, and the calendar drawn again shows it done.
  await officer.fill('#calendar-submitted-on', unrecorded.due_on);
  await officer.click('#calendar-record-save');
  await officer.waitForSelector(`#calendar-out [data-entry="${key}"][data-status="done"]`);
  assert.equal(await officer.$('#calendar-record-form'), null, 'the form is gone once recorded');
  assert.equal(await officer.$(`#calendar-out button[data-record="${key}"]`), null, 'nothing left to record for it');
  const after = (await api('/api/calendar')).body.entries.find((e) => e.item === unrecorded.item && e.due_on === unrecorded.due_on);
  assert.equal(after.status, 'done', JSON.stringify(after));
  assert.equal(after.evidence.id, key);
  const shownAfter = await officer.$$eval('#calendar-out tbody tr', (rs) => rs.map((r) => [...r.children].map((td) => td.textContent)));
  const row = shownAfter.find((r) => r[0] === unrecorded.title && r[1] === unrecorded.due_on);
  assert.deepEqual([row[2], row[3]], ['done', `${after.evidence.record} ${key} (programme_submissions) on ${unrecorded.due_on}`]);
  assert.match(after.evidence.record, /submitted by Stormwater Management Officer, reference eNOI 55120$/);
  assert.ok((await officer.textContent('#message')).startsWith(`Recorded ${key}: `), await officer.textContent('#message'));
  const stored = (await api('/api/calendar/records')).body.records.find((r) => r.submission_id === key);
  assert.deepEqual([stored.submitted_on, stored.submitted_by, stored.reference, stored.note], [unrecorded.due_on, ...Object.values(typed)]);
  await officer.screenshot({ path: `${SHOTS}/officer-calendar-recorded.png` });
  await officer.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(officer);
  done(desk, officer);
} finally {
  await browser.close();
}
console.log('calendar flow ok');
