// The annual report for the MS4 permit, as `ms4 report`: each count with its period, its
// denominator and the records it counts, and the same report as CSV.
import { apiError, authHeaders, get, urlOf } from '../api';
import { h, type Ctx } from '../ui';
import { act, field, table } from './act';

/** One count of the report (the definition gives the answer no schema yet). */
export interface Count {
  measure: string;
  label: string;
  count: number;
  denominator?: [string, number] | null;
  dollars?: number | null;
  layer?: string;
  note?: string;
  period: { from: string | null; to: string | null };
  records: string[];
}

interface Report {
  year: number;
  jurisdiction: string;
  period: { from: string; to: string };
  due_on?: string;
  open_facts?: string[];
  counts: Count[];
}

/** The Report section. */
export function renderReport(el: HTMLElement, ctx: Ctx): void {
  const out = h('div', { id: 'report-out' });
  const year = h('input', { id: 'report-year', type: 'number', min: 1990, max: 2200, value: new Date().getFullYear() });
  const form = h('form', { id: 'report-form', class: 'officer-form' }, field('year', 'Reporting year', year), h('button', { type: 'submit', id: 'report-show' }, 'Read the report'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void act(ctx, form, () => report(year.value.trim(), out));
  });
  el.append(form, out);
}

async function report(year: string, out: HTMLElement): Promise<string> {
  const query = { year: Number(year) };
  const [r, csv] = await Promise.all([get('/api/report', { query }) as Promise<Report>, csvOf(year)]);
  const link = h('a', { id: 'report-csv', class: 'button', download: `annual-report-${r.jurisdiction}-${r.year}.csv`, href: URL.createObjectURL(new Blob([csv], { type: 'text/csv' })) }, 'The report as CSV');
  out.replaceChildren(
    h('p', { id: 'report-period', text: `${r.jurisdiction}, reporting year ${r.year}: ${r.period.from} to ${r.period.to}${r.due_on ? `, due ${r.due_on}` : ''}` }),
    link,
    table('Counts', r.counts, [
      ['Count', (c) => h('div', {}, h('span', { 'data-measure': c.measure }, c.label), c.note ? h('p', { class: 'hint', text: c.note }) : null)],
      ['Number', (c) => h('span', { class: 'count', 'data-measure': c.measure }, c.dollars !== null && c.dollars !== undefined ? `${c.count} ($${c.dollars.toFixed(2)})` : String(c.count))],
      ['Of', (c) => (c.denominator ? `${c.denominator[1]} ${c.denominator[0]}` : '')],
      ['Period', (c) => h('span', {}, h('span', { class: 'whole' }, c.period.from ?? 'start'), ' to ', h('span', { class: 'whole' }, c.period.to ?? '—'))],
      ['Records', (c) => records(c)],
    ]),
    r.open_facts?.length ? h('details', { class: 'open-facts' }, h('summary', { text: `${r.open_facts.length} open facts` }), h('ul', {}, ...r.open_facts.map((f) => h('li', { text: f })))) : '',
  );
  return `The ${r.year} report: ${r.counts.length} counts.`;
}

/** A count's records, folded (some counts name every outfall). */
function records(c: Count): Node | string {
  if (!c.records.length) return 'none';
  return h('details', { 'data-records': c.measure }, h('summary', { text: `${c.records.length} record${c.records.length === 1 ? '' : 's'}` }), h('ul', { class: 'records' }, ...c.records.map((id) => h('li', { text: id }))));
}

/** The report's CSV, fetched with the session's token (a plain link would go without it). */
async function csvOf(year: string): Promise<string> {
  const res = await fetch(urlOf('/api/report', {}, { year, format: 'csv' }), { headers: { Accept: 'text/csv', ...authHeaders() } });
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
  return text;
}
