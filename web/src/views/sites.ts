// The construction sites, for the officer and the inspector: what is due and overdue at
// each site (`/api/sites/due`, computed from the town's law), a site's card with its
// schedule, open facts and log, and the site inspection form. The form is built from the
// server's own definition of `POST /api/sites/{id}/actions` (the API document, of which
// web/openapi.json is the copy), as the facility inspections' forms are (forms.ts): the
// fields an inspection has are those the definition describes "For an inspection", with
// their types, ranges and choices, so the page, `ms4 site log` and the API cannot drift.
// Field names are the API's paths (`practices[0].condition`), so a refusal is shown next
// to its field.
import { paths } from '../../openapi.json';
import { get, post } from '../api';
import { localTime, resolve } from '../forms';
import { h, type Ctx } from '../ui';
import { act, table, today } from './act';

type Schema = Record<string, any>;

/** The request body of `POST /api/sites/{id}/actions`, as the server publishes it. */
const SITE_ACTION: Schema = (paths as any)['/api/sites/{id}/actions'].post.requestBody.content['application/json'].schema;

/** The fields the page fills itself: the kind (an inspection), and the key that makes a
 *  resend store once. Photos are added to a facility inspection's card, not typed here. */
const FILLED_BY_PAGE = ['kind', 'idempotency_key', 'photos'];

/** How many rows a list of parts (practices, deficiencies) offers. */
const ROWS: Record<string, number> = { practices: 4, deficiencies: 2 };

/** One field of the site inspection form. */
export interface SiteField {
  /** The API path of the value (`on`, `practices[0].condition`). */
  name: string;
  label: string;
  type: 'select' | 'text' | 'number' | 'textarea' | 'checkbox' | 'date' | 'time' | 'lines';
  options?: string[];
  required?: boolean;
  min?: number;
  max?: number;
  hint?: string;
  /** The fieldset it is shown in. */
  group?: string;
}

const humanise = (n: string) => (n.charAt(0).toUpperCase() + n.slice(1)).replace(/_/g, ' ');
/** One of a list's rows by name (`practices` → `practice`). */
const singular = (n: string) => n.replace(/ies$/, 'y').replace(/s$/, '');
/** A description's words after its `For an inspection:` lead, as a sentence. */
const ownWords = (d: string | undefined) => {
  const w = (d ?? '').replace(/^For an inspection:\s*/, '');
  return w.charAt(0).toUpperCase() + w.slice(1);
};

/** The field of one scalar schema. */
function scalar(name: string, s0: Schema, required: boolean, group?: string): SiteField {
  const s = resolve(s0);
  const hint = ownWords(s0.description ?? s.description) || undefined;
  const base = { name, label: humanise(name.replace(/^.*[.\]]/, '')), required, hint, group };
  if (s.enum) return { ...base, type: 'select', options: ['', ...s.enum] };
  if (s.type === 'boolean') return { ...base, type: 'checkbox', required: false };
  if (s.type === 'number' || s.type === 'integer') return { ...base, type: 'number', min: s.minimum, max: s.maximum };
  if (s.format === 'date') return { ...base, type: 'date' };
  if (name === 'at') return { ...base, type: 'time' };
  if (name === 'notes') return { ...base, type: 'textarea' };
  return { ...base, type: 'text' };
}

/** The site inspection form's fields, from the definition: the day, time and who, then
 *  every property it describes as an inspection's, then the notes. */
export function siteInspectionFields(def: Schema = SITE_ACTION): SiteField[] {
  const props = def.properties as Record<string, Schema>;
  const req: string[] = def.required ?? [];
  const out: SiteField[] = ['on', 'at', 'by'].map((n) => scalar(n, props[n], req.includes(n)));
  const lists: SiteField[] = [];
  const own = Object.entries(props)
    .filter(([name, s]) => !FILLED_BY_PAGE.includes(name) && String(s.description ?? '').startsWith('For an inspection'))
    // Who made it first: the one an inspection must say.
    .sort(([a], [b]) => Number(b === 'role') - Number(a === 'role'));
  for (const [name, s] of own) {
    if (s.type === 'array') {
      const item = resolve(s.items ?? {});
      const group = humanise(singular(name));
      if (item.type === 'object' && item.properties) {
        const itemReq: string[] = item.required ?? [];
        // The row's own word first (`practice`), then what it requires, then the rest.
        const rank = (k: string) => (k === singular(name) ? 0 : itemReq.includes(k) ? 1 : 2);
        const cols = Object.entries(item.properties as Record<string, Schema>).sort(([a], [b]) => rank(a) - rank(b));
        for (let i = 0; i < (ROWS[name] ?? 2); i++) {
          for (const [k, v] of cols) {
            // A row's own required fields are the server's to name once the row is given.
            lists.push({ ...scalar(`${name}[${i}].${k}`, v, false, `${group} ${i + 1}`), hint: i === 0 ? ownWords(v.description) : undefined });
          }
        }
      } else lists.push({ name, label: humanise(name), type: 'lines', hint: `${ownWords(s.description)} One a line.`, group: humanise(name) });
      continue;
    }
    // The role is required here, as the server refuses an inspection without it.
    out.push(scalar(name, s, name === 'role'));
  }
  out.push(...lists);
  if (props.notes) out.push(scalar('notes', props.notes, false));
  return out;
}

/** A form's values as the request body: empty fields left out, numbers as numbers, rows
 *  of a list with nothing typed dropped. */
export function siteInspectionBody(fields: SiteField[], values: Record<string, string | boolean>): Record<string, any> {
  const body: Record<string, any> = { kind: 'inspection' };
  const lists: Record<string, Record<string, any>[]> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (v === undefined || v === '' || v === false) continue;
    const value = f.type === 'number' ? Number(v) : f.type === 'checkbox' ? true : String(v).trim();
    const row = f.name.match(/^(\w+)\[(\d+)\]\.(\w+)$/);
    if (row) {
      ((lists[row[1]] ??= [])[Number(row[2])] ??= {})[row[3]] = value;
    } else if (f.type === 'lines') {
      const lines = String(v).split('\n').map((l) => l.trim()).filter(Boolean);
      if (lines.length) body[f.name] = lines;
    } else body[f.name] = value;
  }
  for (const [name, rows] of Object.entries(lists)) {
    const given = rows.filter((r) => r && Object.keys(r).length);
    if (given.length) body[name] = given;
  }
  return body;
}

/** A duty of a site's schedule, as `/api/sites/due` answers it. */
interface Duty { rule: string; citation: string; what: string; due_at?: string | null; status: string; met_at?: string | null; counted?: string[] }
/** A site's schedule. */
interface Schedule { site_id: string; status: string; duties: Duty[]; open_facts: string[] }
/** What is due, by site. */
interface DueAnswer { as_of: string; due: number; overdue: number; stop_work_in_effect: number; sites: Schedule[]; unreadable: string[] }

const when = (t?: string | null) => (t ? t.replace('T', ' ').slice(0, 16) : '');

/** The Sites section: the due list, a card, the inspection form. */
export function renderSites(el: HTMLElement, ctx: Ctx): void {
  const list = h('div', { id: 'site-due-list' });
  const card = h('div', { id: 'site-card' });
  el.append(
    h('h3', { text: 'Construction sites: what is due' }),
    h('button', { type: 'button', id: 'sites-due', onclick: () => void dueList(ctx, list, card) }, 'What is due'),
    list,
    card,
  );
  void dueList(ctx, list, card);
}

/** The due list; `quiet` when another action says what was done (its errors are that
 *  action's). */
async function dueList(ctx: Ctx, list: HTMLElement, card: HTMLElement, quiet = false): Promise<void> {
  const work = async () => {
    const d = (await get('/api/sites/due')) as unknown as DueAnswer;
    const rows = d.sites;
    list.replaceChildren(
      h('p', { id: 'site-due-count', 'data-due': String(d.due), 'data-overdue': String(d.overdue), text: `As of ${when(d.as_of)}: ${d.due} due, ${d.overdue} overdue, ${d.stop_work_in_effect} stop-work order(s) in effect.` }),
      table('Sites not closed', rows, [
        ['Site', (s) => s.site_id],
        ['Status', (s) => s.status],
        ['Overdue', (s) => String(s.duties.filter((x) => x.status === 'overdue').length)],
        ['Due', (s) => String(s.duties.filter((x) => x.status === 'due').length)],
        ['First', (s) => {
          const first = s.duties.find((x) => x.status === 'overdue' || x.status === 'due');
          return first ? `${first.status}: ${first.what}${first.due_at ? ` by ${when(first.due_at)}` : ''}` : '—';
        }],
        ['', (s) => h('button', { type: 'button', 'data-site': s.site_id, onclick: () => void showSite(ctx, s.site_id, card, list) }, 'Open')],
      ]),
      ...d.unreadable.map((u) => h('p', { class: 'error', text: `Unreadable: ${u}` })),
    );
    return `${rows.length} site${rows.length === 1 ? '' : 's'}: ${d.due} due, ${d.overdue} overdue.`;
  };
  if (quiet) await work();
  else await act(ctx, null, work);
}

/** A site's card: who and where, its schedule, open facts and log, and the form. */
async function showSite(ctx: Ctx, id: string, card: HTMLElement, list: HTMLElement): Promise<void> {
  const s = (await get('/api/sites/{id}', { path: { id } })) as any;
  const sched: Schedule = s.schedule;
  card.replaceChildren(
    h('h3', { id: 'site-title', 'data-site': s.site_id, text: `${s.site_id}${s.name ? ` — ${s.name}` : ''}` }),
    h('p', { text: `Status ${s.status}; priority ${s.priority ?? 'none'} (${s.priority_reason}).` }),
    h('p', { text: `Qualified inspector: ${s.qualified_inspector ?? 'not named'}; trained contractor: ${s.trained_contractor ?? 'not named'}; rain gauge: ${s.rain_gauge ?? 'none named'}.` }),
    table('Schedule', sched.duties, [
      ['Status', (d) => h('span', { 'data-duty-status': d.status, text: d.status.replace(/_/g, ' ') })],
      ['By', (d) => when(d.due_at)],
      ['What', (d) => d.what],
      ['Citation', (d) => d.citation],
    ]),
    ...(sched.open_facts.length ? [h('ul', { id: 'site-open-facts' }, ...sched.open_facts.map((f) => h('li', { text: `Open fact: ${f}` })))] : []),
    table('Log', s.actions ?? [], [
      ['On', (a: any) => `${a.on}${a.at ? ` ${a.at}` : ''}`],
      ['What', (a: any) => `${String(a.kind).replace(/_/g, ' ')}${a.role ? ` (${String(a.role).replace(/_/g, ' ')})` : ''}`],
      ['By', (a: any) => a.by ?? ''],
    ]),
    inspectionForm(ctx, id, card, list),
  );
}

function fieldInput(f: SiteField): HTMLElement {
  const id = `site-f-${f.name.replace(/[^a-z0-9]+/gi, '-')}`;
  let input: HTMLElement;
  if (f.type === 'select') input = h('select', { id, name: f.name }, ...f.options!.map((o) => h('option', { value: o, text: o ? o.replace(/_/g, ' ') : '—' })));
  else if (f.type === 'textarea' || f.type === 'lines') input = h('textarea', { id, name: f.name, rows: 2 });
  else if (f.type === 'checkbox') input = h('input', { id, name: f.name, type: 'checkbox' });
  else input = h('input', { id, name: f.name, type: f.type, min: f.min, max: f.type === 'date' ? today() : f.max, step: f.type === 'number' ? 'any' : undefined, value: f.name === 'on' ? today() : f.name === 'at' ? localTime(new Date()) : undefined });
  return h('div', { class: `field ${f.type}` },
    h('label', { for: id, text: f.required ? `${f.label} (required)` : f.label }),
    input,
    f.hint ? h('p', { class: 'hint', text: f.hint }) : null,
    h('p', { class: 'field-error', 'data-error-for': f.name, role: 'alert' }),
  );
}

/** The site inspection form, posting to `/api/sites/{id}/actions` with a key of its own
 *  (a resend after a dropped answer stores the inspection once). */
function inspectionForm(ctx: Ctx, id: string, card: HTMLElement, list: HTMLElement): HTMLFormElement {
  const fields = siteInspectionFields();
  const parts: HTMLElement[] = [];
  let group: string | undefined;
  let set: HTMLElement | null = null;
  for (const f of fields) {
    if (f.group && f.group !== group) {
      set = h('fieldset', {}, h('legend', { text: f.group }));
      parts.push(set);
    }
    group = f.group;
    if (f.group && set) set.append(fieldInput(f));
    else parts.push(fieldInput(f));
  }
  const key = `site-${id}-${crypto.randomUUID()}`;
  const form = h('form', { id: 'site-inspection-form', class: 'officer-form' },
    h('h4', { text: 'Record an inspection of this site' }),
    ...parts,
    h('button', { type: 'submit', id: 'site-inspection-save' }, 'Record the inspection'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const values: Record<string, string | boolean> = {};
    for (const f of fields) {
      const input = form.elements.namedItem(f.name) as HTMLInputElement | null;
      if (input) values[f.name] = f.type === 'checkbox' ? input.checked : input.value;
    }
    const body: Record<string, any> = { ...siteInspectionBody(fields, values), idempotency_key: key };
    void act(ctx, form, async () => {
      const s = (await post('/api/sites/{id}/actions', { path: { id }, json: body as any })) as any;
      await showSite(ctx, id, card, list);
      await dueList(ctx, list, card, true);
      return `Recorded the inspection of ${s.site_id} on ${body.on}.`;
    });
  });
  return form;
}
