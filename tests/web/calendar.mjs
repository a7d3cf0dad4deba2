// Issue 29 in the page, on the demo: the officer opens Officer → Calendar and sees the
// permit's programme items as `/api/calendar` answers them (the overdue count, Mapping
// Phase I's day and state, the profile's readings said to be so), then Officer →
// Inspections due, narrows it to SMPs, sees the list `/api/inspections/due` answers, and
// clicks an SMP to bring the map to it.
import { launch, context, open, assertNoSideScroll, done, api, SHOTS, assert } from './lib.mjs';

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
  await page.screenshot({ path: `${SHOTS}/officer-calendar.png` });
  const facts = await page.$$eval('#calendar-open-facts li', (t) => t.map((x) => x.textContent));
  assert.deepEqual(facts, cal.open_facts.map((f) => `Open fact: ${f}`));

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
} finally {
  await browser.close();
}
console.log('calendar flow ok');
