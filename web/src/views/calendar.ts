// Two of the officer's sections: the permit calendar (`/api/calendar`: each programme item
// of the permit with its day, its state, the record that shows it done (late by how many
// days when submitted after its day) or how to record it, and the facts the registry
// cannot settle), and the inspections due (`/api/inspections/due`: every asset's
// next inspection by the profile's schedule). The server decides what is due, the page
// writes it out as answered so the page and `ms4 calendar` cannot differ. An officer
// records an occurrence's submission from its row (`POST /api/calendar/records`, as `ms4
// calendar record`); the server checks it, and the calendar is drawn again as it answers.
import { busy, focusAnswer, h, markDrawn, type Ctx } from '../ui';
import { get, getGeoJson, post, type Feature, type Request } from '../api';
import { fitTo, showAnswer } from '../map';
import { newKey } from '../queue';
import { act, field, table, today, values } from './act';

/** A calendar entry, as `/api/calendar` answers it (the definition gives it no schema). */
interface Entry {
  item: string;
  title: string;
  rule: string;
  due_on: string;
  case_id?: string;
  status: string;
  evidence?: { layer: string; id: string; record: string; on: string };
  /** For an occurrence submitted after its day: how many days after. */
  late_by_days?: number;
  /** For an occurrence past or due with no submission recorded: how to record one. */
  to_record?: string;
  citation: string;
  confirmed: boolean;
}
interface CalendarAnswer { jurisdiction: string; as_of: string; within_days: number; note?: string; open_facts: string[]; entries: Entry[] }

/** An asset's next inspection, as `/api/inspections/due` answers it. */
interface DueItem {
  asset: string;
  layer: string;
  id: string;
  priority?: string;
  practice_type?: string;
  requirement: { by: string; every: number; unit: string; citation: string; default_reading: boolean };
  last_inspection: string | null;
  next_due: string | null;
  standing: string;
  reason: string;
}
interface DueSummary { items: number; never_inspected: number; overdue: number; due: number; not_due: number }

/** The asset kinds the due list can be narrowed to, as the route names them. */
const KINDS = ['outfall', 'interconnection', 'catch_basin', 'manhole', 'smp', 'structure', 'site'];

/** How many rows the due list shows: a town has thousands of catch basins, and a table of
 *  them all helps no one; the counts above it are the whole answer's. */
const SHOWN = 200;

const words = (s: string) => s.replace(/_/g, ' ');
const state = (s: string) => h('span', { class: 'status', 'data-status': s }, words(s));

/** A submission recorded, as `POST /api/calendar/records` answers it. */
interface Recorded { submission_id: string; late_by_days?: number | null; again: boolean }

/** Whether a submission recorded for the occurrence would show it done: an item a
 *  submission shows done (not one due per case, done by its case's actions), due,
 *  overdue or past with none recorded. */
export function recordable(e: Pick<Entry, 'case_id' | 'status'>): boolean {
  return !e.case_id && ['due', 'overdue', 'not_recorded'].includes(e.status);
}

/** The Calendar section: the permit's items on a day. */
export function renderCalendar(el: HTMLElement, ctx: Ctx): void {
  const out = h('div', { id: 'calendar-out' });
  const day = h('input', { id: 'calendar-as-of', name: 'as_of', type: 'date' });
  el.append(
    h('h3', { text: 'Permit calendar' }),
    h('div', { class: 'field' }, h('label', { for: 'calendar-as-of', text: 'As of (empty: today)' }), day),
    h('button', { type: 'button', id: 'calendar-show', onclick: () => void calendar(ctx, day.value, out) }, 'Show the calendar'),
    out,
  );
  void calendar(ctx, '', out);
}

async function calendar(ctx: Ctx, asOf: string, out: HTMLElement): Promise<void> {
  await act(ctx, null, () => draw(ctx, asOf, out));
}

/** Draws the calendar on `asOf` (empty: today) into `out`; says what it shows. */
async function draw(ctx: Ctx, asOf: string, out: HTMLElement): Promise<string> {
  const c = (await get('/api/calendar', { query: asOf ? { as_of: asOf } : {} })) as unknown as CalendarAnswer;
  const count = (s: string) => c.entries.filter((e) => e.status === s).length;
  const [overdue, due] = [count('overdue'), count('due')];
  // Recording needs the officer's role: a reader sees how to record, not a form.
  const writes = ctx.session.may.enforce;
  const form = h('div', { id: 'calendar-record' });
  out.replaceChildren(
    h('p', { id: 'calendar-count', 'data-overdue': String(overdue), 'data-due': String(due), 'data-late': String(count('done_late')), text: `As of ${c.as_of} (${c.jurisdiction}): ${overdue} overdue, ${due} due within ${c.within_days} days, ${count('not_recorded')} past with no record kept, ${count('done')} done on time, ${count('done_late')} done late.` }),
    c.note ? h('p', { class: 'hint', text: c.note }) : '',
    table('Programme items', c.entries, [
      ['Item', (e) => h('span', { 'data-item': e.item, text: e.title })],
      ['Due', (e) => e.due_on],
      // A late submission says by how many days: done, but never called on time.
      ['State', (e) => (e.late_by_days ? h('span', { class: 'status', 'data-status': e.status, 'data-entry': entryKey(e), 'data-late': String(e.late_by_days) }, `${words(e.status)}, ${e.late_by_days} days late`) : h('span', { class: 'status', 'data-status': e.status, 'data-entry': entryKey(e) }, words(e.status)))],
      ['Done by', (e) => (e.evidence ? `${e.evidence.record} ${e.evidence.id} (${e.evidence.layer}) on ${e.evidence.on}` : e.to_record ? h('span', { class: 'hint', 'data-to-record': e.item, text: e.to_record }) : '—')],
      // An item the profile only reads from secondary sources says so beside its citation.
      ['Citation', (e) => (e.confirmed ? e.citation : `${e.citation} (the profile's reading)`)],
      ...(writes ? [['Record', (e: Entry) => (recordable(e) ? h('button', { type: 'button', 'data-record': entryKey(e), onclick: () => openRecord(ctx, e, asOf, out, form) }, 'Record the submission') : '')] as [string, (e: Entry) => string | Node]] : []),
    ]),
    form,
    c.open_facts.length ? h('ul', { id: 'calendar-open-facts' }, ...c.open_facts.map((f) => h('li', { text: `Open fact: ${f}` }))) : '',
  );
  return `${c.entries.length} calendar items: ${overdue} overdue, ${due} due.`;
}

/** An occurrence's key: its item and day, as its submission's id is made. */
const entryKey = (e: Pick<Entry, 'item' | 'due_on' | 'case_id'>) => (e.case_id ? `${e.item}:${e.due_on}:${e.case_id}` : `${e.item}:${e.due_on}`);

type RecordBody = NonNullable<Request<'/api/calendar/records', 'post'>['json']>;

/** The form recording the submission of one occurrence, under `box` (one at a time). Its
 *  item and day are the row's; the server checks the rest and names the field at fault,
 *  shown beside it with the typed values kept. One key per form: sent again after an
 *  answer lost on the way, the submission is stored once. On success the calendar is
 *  drawn again, the occurrence done by its submission. */
function openRecord(ctx: Ctx, e: Entry, asOf: string, out: HTMLElement, box: HTMLElement): void {
  const key = `calendar-${newKey()}`;
  const save = h('button', { type: 'submit', id: 'calendar-record-save' }, 'Record the submission');
  const form = h('form', { id: 'calendar-record-form', class: 'officer-form', novalidate: true, 'data-entry': entryKey(e), 'aria-labelledby': 'calendar-record-title' },
    h('h4', { id: 'calendar-record-title', text: `Record the submission of ${e.title}, due ${e.due_on}` }),
    // The occurrence is the row's: a refusal of its item or day is said here.
    h('p', { class: 'field-error', 'data-error-for': 'item_id', role: 'alert' }),
    h('p', { class: 'field-error', 'data-error-for': 'for_due_on', role: 'alert' }),
    field('submitted_on', 'Submitted on', h('input', { id: 'calendar-submitted-on', type: 'date', max: today(), value: today() })),
    field('submitted_by', 'Submitted by (a name or an office)', h('input', { id: 'calendar-submitted-by' })),
    field('reference', 'Reference (the confirmation number, or the file submitted)', h('input', { id: 'calendar-reference' })),
    field('note', 'Note', h('textarea', { id: 'calendar-note', rows: 2 })),
    h('p', { class: 'field-error', 'data-error-for': 'idempotency_key', role: 'alert' }),
    save,
    h('button', { type: 'button', id: 'calendar-record-cancel', onclick: () => box.replaceChildren() }, 'Cancel'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const body = { ...values(form), item_id: e.item, for_due_on: e.due_on } as unknown as RecordBody;
    void busy([save], form, () => act(ctx, form, async () => {
      const r = (await post('/api/calendar/records', { json: body, headers: { 'Idempotency-Key': key } })) as unknown as Recorded;
      await draw(ctx, asOf, out);
      const shown = out.querySelector<HTMLElement>(`[data-entry="${CSS.escape(entryKey(e))}"]`);
      if (shown) focusAnswer(shown);
      const late = r.late_by_days ? `, ${r.late_by_days} days late` : '';
      return `Recorded ${r.submission_id}: ${e.title} due ${e.due_on} submitted on ${body.submitted_on}${late}.`;
    }));
  });
  box.replaceChildren(form);
  form.scrollIntoView?.({ block: 'nearest' });
  form.querySelector<HTMLInputElement>('#calendar-submitted-on')?.focus();
}

/** The Inspections due section: the due and overdue assets, one kind or all. */
export function renderInspectionsDue(el: HTMLElement, ctx: Ctx): void {
  const out = h('div', { id: 'inspections-due-out' });
  const kind = h('select', { id: 'inspections-kind', name: 'kind' }, h('option', { value: '', text: 'every asset' }), ...KINDS.map((k) => h('option', { value: k, text: words(k) })));
  el.append(
    h('h3', { text: 'Inspections due' }),
    h('div', { class: 'field' }, h('label', { for: 'inspections-kind', text: 'Assets' }), kind),
    h('button', { type: 'button', id: 'inspections-due', onclick: () => void dueList(ctx, kind.value, out) }, 'What is due'),
    out,
  );
  void dueList(ctx, '', out);
}

async function dueList(ctx: Ctx, kind: string, out: HTMLElement): Promise<void> {
  await act(ctx, null, async () => {
    // The GeoJSON form carries each asset's place (for the click) and the answer's counts.
    const fc = (await getGeoJson('/api/inspections/due', { query: kind ? { kind: [kind] } : {} })) as unknown as { answer: { as_of: string; summary: DueSummary }; features: Feature[] };
    const s = fc.answer.summary;
    const rows = fc.features.map((f) => f.properties as unknown as DueItem);
    const shown = rows.slice(0, SHOWN);
    out.replaceChildren(
      h('p', { id: 'inspections-due-count', 'data-overdue': String(s.overdue), 'data-due': String(s.due), 'data-never': String(s.never_inspected), text: `As of ${fc.answer.as_of}: ${s.overdue} overdue, ${s.due} due, ${s.never_inspected} never inspected, of ${s.items} assets.` }),
      rows.length > SHOWN ? h('p', { class: 'hint', text: `The first ${SHOWN} of ${rows.length}; choose a kind of asset to narrow the list.` }) : '',
      table('Assets due', shown, [
        ['Asset', (d) => h('button', { type: 'button', class: 'link', 'data-asset': d.id, onclick: () => void flyTo(ctx, d, fc.features) }, d.id)],
        ['Kind', (d) => words(d.asset)],
        ['Priority or practice', (d) => d.priority ?? d.practice_type ?? '—'],
        ['Last inspected', (d) => d.last_inspection ?? 'never'],
        ['Next due', (d) => d.next_due ?? 'now'],
        ['State', (d) => state(d.standing)],
        ['PE', (d) => (d.requirement.by === 'professional_engineer' ? 'PE required' : '')],
      ]),
    );
    return `${rows.length} assets listed: ${s.overdue} overdue, ${s.due} due.`;
  });
}

/** Brings the map to one asset of the list, drawn as the one selected. */
async function flyTo(ctx: Ctx, d: DueItem, features: Feature[]): Promise<void> {
  const picked = features.filter((f) => (f.properties as any).id === d.id && (f.properties as any).layer === d.layer);
  if (!picked.some((f) => f.geometry)) return ctx.say(`${d.id} has no place on the map.`, true);
  const fc = { type: 'FeatureCollection' as const, features: picked.map((f) => ({ ...f, properties: { ...f.properties, role: 'selected' } })) };
  await showAnswer(fc, false);
  fitTo(fc);
  markDrawn('inspection-due', performance.now());
  document.body.dataset.shown = d.id;
  ctx.say(`${d.id} shown on the map.`);
}
