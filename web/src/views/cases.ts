// The officer's cases, through the same commands as `ms4 case`: open one (by hand, from a
// suspect screening, or one per connection found illicit or needing review), log what was
// done and by which office of the town's law, print the notice with the orders and
// deadline chosen, close it; and what is due and overdue with the fines accrued.
import { apiError, authHeaders, get, post, urlOf, type Request, type Schemas } from '../api';
import type { paths } from '../api-types';
import { h, setUrlState, urlState, type Ctx } from '../ui';
import { resultWord } from '../facts';
import { act, field, select, table, today, values } from './act';

/** The origins and action kinds the API takes (its `Origin` and `ActionKind`). */
const ORIGINS: Schemas['Origin'][] = ['staff', 'screening', 'connection', 'complaint', 'hotline'];
const KINDS: Schemas['ActionKind'][] = ['site_visit', 'dye_test', 'smoke_test', 'cctv', 'sampling', 'notice_of_violation', 'written_notice', 'correction_plan', 'reinspection', 'citation_issued', 'compliance_report', 'fine_paid', 'appeal_filed', 'appeal_heard', 'appeal_decided', 'hearing_requested', 'hearing_decided', 'decision_filed', 'abatement_by_town', 'referral', 'eliminated'];
const CLOSURES: Schemas['Closure'][] = ['eliminated', 'unfounded', 'referred'];
const RESPONDENT_KINDS: Schemas['RespondentKind'][] = ['individual', 'business', 'public_body', 'state', 'unknown'];
/** The orders a notice can make, as the notice route names them. */
const ORDERS = ['elimination', 'cease_and_desist', 'abatement', 'monitoring', 'fine', 'bmps'];
const DOCUMENTS = ['notice_of_violation', 'written_notice', 'citation'];

/** A case as the API answers it (the definition gives the answer no schema yet). */
export interface Case {
  case_id: string;
  status: string;
  origin: string;
  opened_on: string;
  closed_on?: string | null;
  closure?: string | null;
  asset_id?: string | null;
  connection_id?: string | null;
  parcel_id?: string | null;
  inspection_id?: string | null;
  description?: string | null;
  respondent?: { name?: string | null; kind?: string; reading?: string | null } | null;
  candidates?: { rank: number; connection_id: string; finding?: string; discharge_kind?: string; parcel_id?: string; reasons?: string[] }[];
  actions?: { kind: string; on: string; by?: string; outcome?: string | null; deadline?: string | null; method?: string | null; notes?: string | null; recorded_by?: string }[];
  deadlines?: CaseDeadlines;
}

/** A case's clocks and fines, as of a time. */
export interface CaseDeadlines {
  case_id: string;
  case_status: string;
  accrued: number;
  deadlines: { what: string; due_on?: string | null; due_at?: string | null; status: string; counted?: string; citation?: string; met_on?: string | null }[];
  fines: Record<string, unknown>[];
}

/** The JSON body `M P` takes. */
type Body<P extends keyof paths> = NonNullable<Request<P, 'post'>['json']>;

const money = (n: number) => `$${n.toFixed(2)}`;
const where = (c: Case) => [c.asset_id, c.connection_id, c.parcel_id].filter(Boolean).join(' · ') || '—';

/** The Cases section. */
export function renderCases(el: HTMLElement, ctx: Ctx): void {
  const list = h('div', { id: 'case-list' });
  const detail = h('div', { id: 'case-detail' });
  const screenings = h('div', { id: 'screening-list' });
  const opened = h('input', { id: 'connections-opened-on', type: 'date', value: today() });
  const open = openForm(ctx, detail, list);
  const bulk: HTMLElement = h('div', { id: 'cases-from-connections-form', class: 'officer-form' },
    field('opened_on', 'Opened on (a case for each suspect connection)', opened),
    h('button', { type: 'button', id: 'cases-from-connections', onclick: () => fromConnections(ctx, bulk, opened.value, list, detail) }, 'A case for each suspect connection'),
  );
  el.append(
    h('h3', { text: 'Open a case' }),
    open,
    h('button', { type: 'button', id: 'list-screenings', onclick: () => suspectScreenings(ctx, screenings, detail, list, open) }, 'Suspect screenings'),
    screenings,
    bulk,
    detail,
    h('h3', { text: 'Cases' }),
    h('button', { type: 'button', id: 'list-cases', onclick: () => listCases(ctx, list, detail) }, 'List cases'),
    list,
  );
  void listCases(ctx, list, detail, true);
  // A link's case (`?view=officer&section=cases&case=CASE-3`) is shown again.
  const linked = urlState().get('case');
  if (linked) void pickCase(ctx, linked, detail, list);
}

function openForm(ctx: Ctx, detail: HTMLElement, list: HTMLElement): HTMLFormElement {
  const form = h('form', { id: 'case-open-form', class: 'officer-form' },
    field('origin', 'Origin', select('case-origin', ORIGINS)),
    field('opened_on', 'Opened on', h('input', { id: 'case-opened-on', type: 'date', value: today() })),
    field('asset_id', 'Outfall or other asset', h('input', { id: 'case-asset', placeholder: 'OF-000002' })),
    field('connection_id', 'Connection', h('input', { id: 'case-connection', placeholder: 'C-000003' })),
    field('parcel_id', 'Parcel', h('input', { id: 'case-parcel' })),
    field('inspection_id', 'Screening', h('input', { id: 'case-inspection' })),
    field('reported_by', 'Reported by', h('input', { id: 'case-reported-by' })),
    field('description', 'What was reported', h('textarea', { id: 'case-description', rows: 2 })),
    h('button', { type: 'submit', id: 'case-open' }, 'Open the case'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void act(ctx, form, async () => {
      const c = (await post('/api/cases', { json: values(form) as unknown as Body<'/api/cases'> })) as Case;
      await showCase(ctx, c.case_id, detail, list);
      return `Opened ${c.case_id} (${c.origin}, ${where(c)}).`;
    });
  });
  return form;
}

/** The dry-weather screenings that failed, need follow-up or saw sewage, each with a
 *  button opening a case from it. */
async function suspectScreenings(ctx: Ctx, el: HTMLElement, detail: HTMLElement, list: HTMLElement, form: HTMLFormElement): Promise<void> {
  await act(ctx, null, async () => {
    const fc = await get('/collections/{layer}/items', { path: { layer: 'inspections' }, query: { limit: 10000 }, filter: { kind: 'dry_weather_screening' } });
    const rows = fc.features.map((f) => f.properties as Record<string, any>).filter((p) => p.result !== 'pass' || p.sewage_indicators === true);
    el.replaceChildren(table('Suspect screenings', rows, [
      ['Screening', (p) => `${p.asset_id} on ${p.inspected_on}`],
      ['Result', (p) => resultWord(p.result)],
      ['Sewage seen', (p) => (p.sewage_indicators ? 'yes' : 'no')],
      ['Notes', (p) => p.notes ?? ''],
      ['', (p) => h('button', { type: 'button', 'data-screening': p.inspection_id, onclick: () => caseFromScreening(ctx, p, form, detail, list) }, 'Open a case')],
    ]));
    return `${rows.length} suspect screening${rows.length === 1 ? '' : 's'}.`;
  });
}

function caseFromScreening(ctx: Ctx, p: Record<string, any>, form: HTMLFormElement, detail: HTMLElement, list: HTMLElement): Promise<boolean> {
  const on = (form.querySelector('[name="opened_on"]') as HTMLInputElement).value || today();
  return act(ctx, form, async () => {
    const c = (await post('/api/cases', { json: { origin: 'screening', opened_on: on, inspection_id: p.inspection_id, asset_id: p.asset_id } })) as Case;
    await showCase(ctx, c.case_id, detail, list);
    return `Opened ${c.case_id} from screening ${p.inspection_id}.`;
  });
}

async function fromConnections(ctx: Ctx, form: HTMLElement, on: string, list: HTMLElement, detail: HTMLElement): Promise<void> {
  await act(ctx, form, async () => {
    const a = (await post('/api/cases/from-connections', { json: { opened_on: on } })) as { opened: string[] };
    await listCases(ctx, list, detail, true);
    return `Opened ${a.opened.length} case${a.opened.length === 1 ? '' : 's'}, one per suspect connection no case named${a.opened.length ? `: ${a.opened.join(', ')}` : ''}.`;
  });
}

async function listCases(ctx: Ctx, el: HTMLElement, detail: HTMLElement, quiet = false): Promise<void> {
  const run = async () => {
    const a = (await get('/api/cases')) as { cases: Case[]; count: number };
    el.replaceChildren(
      h('p', { id: 'case-count', text: `${a.count} case${a.count === 1 ? '' : 's'}` }),
      table('Cases', a.cases, [
        ['Case', (c) => h('button', { type: 'button', class: 'link', 'data-case': c.case_id, onclick: () => pickCase(ctx, c.case_id, detail, el) }, c.case_id)],
        ['Status', (c) => (c.closure ? `${c.status} (${c.closure})` : c.status)],
        ['Origin', (c) => c.origin],
        ['Opened', (c) => c.opened_on],
        ['Where', where],
        ['Respondent', (c) => c.respondent?.name ?? '—'],
      ]),
    );
    return `${a.count} cases.`;
  };
  if (quiet) await run().catch((e) => ctx.say((e as Error).message, true));
  else await act(ctx, null, run);
}

/** A case picked from the list, shown above it. */
async function pickCase(ctx: Ctx, id: string, detail: HTMLElement, list: HTMLElement): Promise<void> {
  await act(ctx, null, async () => {
    await showCase(ctx, id, detail, list);
    setUrlState({ case: id });
    detail.scrollIntoView({ block: 'start' });
    return `${id} shown.`;
  });
}

/** A case read with its version (the ETag a close writes back over). */
async function readCase(id: string): Promise<{ c: Case; etag: string | null }> {
  const res = await fetch(urlOf('/api/cases/{id}', { id }), { headers: { Accept: 'application/json', ...authHeaders() } });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw apiError(res.status, res.statusText, body);
  return { c: body as Case, etag: res.headers.get('ETag') };
}

/** Shows a case: who it is against, its candidates, its log, its clocks, and the forms
 *  that act on it. */
export async function showCase(ctx: Ctx, id: string, el: HTMLElement, list: HTMLElement | null = null): Promise<void> {
  const { c, etag } = await readCase(id);
  const refresh = async () => {
    await showCase(ctx, id, el, list);
    if (list) await listCases(ctx, list, el, true);
  };
  const d = c.deadlines;
  el.replaceChildren(
    h('h3', { id: 'case-title', 'data-case': c.case_id, 'data-status': c.status, text: `${c.case_id}: ${c.status}${c.closure ? ` (${c.closure} on ${c.closed_on})` : ''}` }),
    h('p', { text: `Opened ${c.opened_on} from ${c.origin}; ${where(c)}${c.description ? `; ${c.description}` : ''}` }),
    h('p', { id: 'case-respondent', text: `Against: ${c.respondent?.name ?? 'not recorded'} (${c.respondent?.kind ?? 'unknown'})${c.respondent?.reading ? ` — ${c.respondent.reading}` : ''}` }),
    c.candidates?.length
      ? table('Candidate connections, ranked', c.candidates, [
          ['Rank', (x) => String(x.rank)],
          ['Connection', (x) => x.connection_id],
          ['Finding', (x) => h('span', { class: 'finding-word', 'data-finding': x.finding ?? '' }, resultWord(x.finding))],
          ['Discharge', (x) => (x.discharge_kind ?? '—').replace(/_/g, ' ')],
          ['Parcel', (x) => x.parcel_id ?? '—'],
          ['Reasons', (x) => h('ul', {}, ...(x.reasons ?? []).map((r) => h('li', { text: r })))],
        ])
      : '',
    table('Actions', c.actions ?? [], [
      ['On', (a) => a.on],
      ['Action', (a) => a.kind.replace(/_/g, ' ')],
      ['By', (a) => a.by ?? ''],
      ['Outcome', (a) => a.outcome ?? ''],
      ['Deadline', (a) => a.deadline ?? ''],
      ['Recorded by', (a) => a.recorded_by ?? ''],
    ]),
    d ? deadlineTable(d, 'case-deadlines') : '',
    c.status === 'open' ? respondentForm(ctx, c, refresh) : '',
    c.status === 'open' ? actionForm(ctx, c, refresh) : '',
    noticeForm(ctx, c),
    c.status === 'open' ? closeForm(ctx, c, etag, refresh) : '',
  );
}

/** A case's clocks: what is due when, and whether it is met, due or overdue. */
export function deadlineTable(d: CaseDeadlines, id: string): HTMLElement {
  return h('div', { id, class: 'deadlines' },
    table(`Deadlines of ${d.case_id} (${d.case_status}), fines accrued ${money(d.accrued)}`, d.deadlines, [
      ['What', (x) => x.what],
      ['Due', (x) => x.due_at ?? x.due_on ?? '—'],
      ['Status', (x) => h('span', { class: 'status', 'data-status': x.status }, x.status.replace(/_/g, ' '))],
      ['Counted', (x) => x.counted ?? ''],
    ]),
    d.fines.length ? table('Fines', d.fines, [['Fine', (f) => Object.entries(f).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join('; ')]]) : null,
  );
}

/** Who the case is against, set or corrected (`PUT /api/cases/{id}/respondent`): a
 *  notice names them, and the law's kind of person decides what may be served. */
function respondentForm(ctx: Ctx, c: Case, refresh: () => Promise<void>): HTMLFormElement {
  const name = h('input', { id: 'respondent-name', value: c.respondent?.name ?? '' });
  const kind = select('respondent-kind', RESPONDENT_KINDS);
  kind.value = c.respondent?.kind ?? 'unknown';
  const form = h('form', { id: 'respondent-form', class: 'officer-form' },
    h('h4', { text: 'Who the case is against' }),
    field('name', 'Name', name),
    field('kind', 'Kind of person', kind),
    field('acting_for_state', 'An individual acting for the State', select('respondent-state', ['unknown', 'yes', 'no'], '—')),
    field('basis', 'What confirmed it', h('input', { id: 'respondent-basis', placeholder: 'a deed, a register of businesses' })),
    h('button', { type: 'submit', id: 'respondent-set' }, 'Set the respondent'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void act(ctx, form, async () => {
      const res = await fetch(urlOf('/api/cases/{id}/respondent', { id: c.case_id }), {
        method: 'PUT',
        headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...authHeaders() },
        body: JSON.stringify(values(form) satisfies Record<string, string>),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) throw apiError(res.status, res.statusText, body);
      const a = body as Case;
      await refresh();
      return `${a.case_id} is against ${a.respondent?.name} (${a.respondent?.kind?.replace(/_/g, ' ')}).`;
    });
  });
  return form;
}

function actionForm(ctx: Ctx, c: Case, refresh: () => Promise<void>): HTMLFormElement {
  const offices = [...new Set((c.actions ?? []).map((a) => a.by).filter((b): b is string => !!b))];
  const form = h('form', { id: 'action-form', class: 'officer-form' },
    h('h4', { text: 'Log an action' }),
    field('kind', 'What was done', select('action-kind', KINDS)),
    field('on', 'On', h('input', { id: 'action-on', type: 'date', value: today() })),
    field('by', 'By (an office of the town’s law; left empty, its enforcement office)', h('input', { id: 'action-by', list: 'offices' })),
    h('datalist', { id: 'offices' }, ...offices.map((o) => h('option', { value: o }))),
    field('method', 'Served (a notice)', select('action-method', ['hand', 'mail'], '—')),
    field('received_on', 'Received on (mail)', h('input', { id: 'action-received', type: 'date' })),
    field('deadline', 'Deadline it sets', h('input', { id: 'action-deadline', type: 'date' })),
    field('outcome', 'Outcome', h('input', { id: 'action-outcome', placeholder: 'positive, corrected…' })),
    field('violations', 'Violations cited', h('input', { id: 'action-violations', type: 'number', min: 0 })),
    field('connection_id', 'Connection', h('input', { id: 'action-connection' })),
    field('notes', 'Notes', h('textarea', { id: 'action-notes', rows: 2 })),
    h('button', { type: 'submit', id: 'action-log' }, 'Log the action'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void act(ctx, form, async () => {
      const v: Record<string, unknown> = values(form);
      if (v.violations !== undefined) v.violations = Number(v.violations);
      const a = (await post('/api/cases/{id}/actions', { path: { id: c.case_id }, json: v as unknown as Body<'/api/cases/{id}/actions'> })) as Case;
      const last = a.actions?.[a.actions.length - 1];
      await refresh();
      return `Logged ${last?.kind.replace(/_/g, ' ')} on ${last?.on} by ${last?.by} in ${a.case_id}.`;
    });
  });
  return form;
}

/** The notice's query from the form: the document, the orders ticked, the deadline. */
export function noticeQuery(v: Record<string, string>, orders: string[]): Record<string, string> {
  const q: Record<string, string> = {};
  if (v.document) q.document = v.document;
  if (orders.length) q.orders = orders.join(',');
  if (v.deadline) q.deadline = v.deadline;
  return q;
}

function noticeForm(ctx: Ctx, c: Case): HTMLElement {
  const view = h('div', { id: 'notice-view' });
  const form = h('form', { id: 'notice-form', class: 'officer-form' },
    h('h4', { text: 'The notice' }),
    field('document', 'Document', select('notice-document', DOCUMENTS)),
    h('fieldset', { id: 'notice-orders' }, h('legend', { text: 'Orders' }), ...ORDERS.map((o) => h('label', { class: 'check' }, h('input', { type: 'checkbox', value: o, 'data-order': o }), ` ${o.replace(/_/g, ' ')}`)), h('p', { class: 'field-error', 'data-error-for': 'orders', role: 'alert' })),
    field('deadline', 'Deadline for abatement or restoration', h('input', { id: 'notice-deadline', type: 'date' })),
    h('button', { type: 'submit', id: 'notice-print' }, 'Print the notice'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const orders = [...form.querySelectorAll<HTMLInputElement>('input[data-order]:checked')].map((i) => i.value);
    void act(ctx, form, async () => {
      const url = urlOf('/api/cases/{id}/notice', { id: c.case_id }, noticeQuery(values(form), orders));
      const res = await fetch(url, { headers: { Accept: 'text/html', ...authHeaders() } });
      const text = await res.text();
      if (!res.ok) {
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        throw apiError(res.status, res.statusText, body);
      }
      showNotice(view, text, url, res.headers.get('x-open-facts'));
      return `The notice of ${c.case_id} is ready to print below.`;
    });
  });
  return h('div', {}, form, view);
}

/** The notice in the page's print view: the server's document, its body's elements only
 *  (nothing in it runs: a parsed document's scripts never do, and they are dropped). Its
 *  own `<style>` is cut before parsing, as the page's policy refuses inline style even in
 *  a parsed document; officer.css sets the notice's paper instead. */
function showNotice(view: HTMLElement, html: string, url: string, openFacts: string | null): void {
  const doc = new DOMParser().parseFromString(html.replace(/<style[^>]*>[\s\S]*?<\/style>/gi, ''), 'text/html');
  doc.querySelectorAll('script, style, link, iframe, object, embed').forEach((e) => e.remove());
  doc.querySelectorAll('[style]').forEach((e) => e.removeAttribute('style'));
  const paper = h('article', { class: 'notice-paper', 'data-url': url });
  paper.append(...[...doc.body.childNodes].map((n) => document.importNode(n, true)));
  view.replaceChildren(
    h('div', { class: 'row no-print' },
      h('button', { type: 'button', id: 'notice-window-print', onclick: () => window.print() }, 'Print'),
      h('button', { type: 'button', onclick: () => view.replaceChildren() }, 'Close the print view'),
    ),
    openFacts && openFacts !== '0' ? h('p', { class: 'hint no-print', text: `${openFacts} open fact${openFacts === '1' ? '' : 's'} in this notice: read it before serving it.` }) : '',
    paper,
  );
}

function closeForm(ctx: Ctx, c: Case, etag: string | null, refresh: () => Promise<void>): HTMLFormElement {
  const form = h('form', { id: 'close-form', class: 'officer-form' },
    h('h4', { text: 'Close the case' }),
    field('closure', 'How it closes', select('close-closure', CLOSURES)),
    field('on', 'On', h('input', { id: 'close-on', type: 'date', value: today() })),
    field('by', 'By (an office of the town’s law)', h('input', { id: 'close-by', list: 'offices' })),
    field('connection_id', 'Connection eliminated (else the case’s own)', h('input', { id: 'close-connection' })),
    field('referred_to', 'Referred to', h('input', { id: 'close-referred' })),
    field('notes', 'How it was eliminated, or why unfounded', h('textarea', { id: 'close-notes', rows: 2 })),
    h('button', { type: 'submit', id: 'case-close' }, 'Close the case'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void act(ctx, form, async () => {
      const a = (await post('/api/cases/{id}/close', { path: { id: c.case_id }, json: values(form) as unknown as Body<'/api/cases/{id}/close'>, headers: etag ? { 'If-Match': etag } : {} })) as Case;
      await refresh();
      return `Closed ${a.case_id}: ${a.closure} on ${a.closed_on}.`;
    });
  });
  return form;
}

/** The Deadlines section: what is due and overdue across the cases, with fines accrued. */
export function renderDeadlines(el: HTMLElement, ctx: Ctx): void {
  const out = h('div', { id: 'deadlines-out' });
  const asOf = h('input', { id: 'deadlines-as-of', type: 'date' });
  const all = h('input', { id: 'deadlines-all', type: 'checkbox' });
  const form = h('form', { id: 'deadlines-form', class: 'officer-form' },
    field('as_of', 'As of (empty: now)', asOf),
    h('label', { class: 'check' }, all, ' closed cases too'),
    h('button', { type: 'submit', id: 'deadlines-show' }, 'What is due'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void deadlines(ctx, form, out, asOf.value, all.checked);
  });
  el.append(form, out);
  void deadlines(ctx, form, out, '', false);
}

async function deadlines(ctx: Ctx, form: HTMLElement, out: HTMLElement, asOf: string, all: boolean): Promise<void> {
  await act(ctx, form, async () => {
    const a = (await get('/api/deadlines', { query: { ...(asOf ? { as_of: asOf } : {}), ...(all ? { all: true } : {}) } })) as { as_of: string; due: number; overdue: number; accrued: number; cases: CaseDeadlines[]; note?: string | null };
    const summary = `${a.due} due, ${a.overdue} overdue, fines accrued ${money(a.accrued)} (as of ${a.as_of.slice(0, 16).replace('T', ' ')})`;
    out.replaceChildren(
      h('p', { id: 'deadline-summary', 'data-due': a.due, 'data-overdue': a.overdue, 'data-accrued': a.accrued, text: summary }),
      a.note ? h('p', { class: 'hint', text: a.note }) : '',
      ...a.cases.filter((c) => c.deadlines.length || c.fines.length).map((c) => deadlineTable(c, `deadlines-${c.case_id}`)),
    );
    return `Deadlines: ${summary}.`;
  });
}
