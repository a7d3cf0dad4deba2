// The stormwater officer: connections by finding, a connection's reasons and citations,
// the upstream trace from an outfall, a watershed's ranked inspection list (CSV), and the
// SMPs without a recorded easement; the cases, the deadlines and the annual report are
// sections of their own (cases.ts, report.ts).
import '../officer.css';
import { get, getGeoJson, type Feature } from '../api';
import { fitTo, getMap, showAnswer } from '../map';
import { clearTrace, showTrace } from '../overlay';
import { h, markDrawn, setUrlState, urlState, type Ctx } from '../ui';
import { table } from './act';
import { resultWord } from '../facts';
import { sideOf } from '../geo';
import { renderCases, renderDeadlines } from './cases';
import { renderReport } from './report';
import { renderSites } from './sites';
import { renderCalendar, renderInspectionsDue } from './calendar';
import { canonical, rankCandidates, type Facts, type Finding, type Connection } from '../candidates';

/** The areas the list can be narrowed to: the registry's boundary (its MS4 jurisdiction),
 *  and each watershed. Read once, in CRS84. */
let areas: Promise<{ boundary: Feature[]; watersheds: Feature[] }> | null = null;
function loadAreas(): Promise<{ boundary: Feature[]; watersheds: Feature[] }> {
  const none = { features: [] as Feature[] };
  areas ??= Promise.all([
    get('/collections/{layer}/items', { path: { layer: 'boundary' }, query: { limit: 100 } }).catch(() => none),
    get('/collections/{layer}/items', { path: { layer: 'watersheds' }, query: { limit: 1000 } }).catch(() => none),
  ]).then(([b, w]) => ({ boundary: b.features, watersheds: w.features }));
  return areas;
}

/** Each connection's parcel, discharge kind and the parcel's address, read once from the
 *  connections and parcels layers (the findings' answers carry only the id). */
let facts: Promise<Map<string, Facts>> | null = null;
function loadFacts(): Promise<Map<string, Facts>> {
  const all = (layer: string) => get('/collections/{layer}/items', { path: { layer }, query: { limit: 10000 } }).then((fc) => fc.features.map((f) => f.properties as Record<string, any>));
  facts ??= Promise.all([all('connections'), all('parcels').catch(() => [])])
    .then(([cs, ps]) => {
      const address = new Map(ps.map((p) => [String(p.parcel_id), (p.address as string | undefined) ?? null]));
      return new Map(cs.map((c) => [String(c.connection_id), { parcel_id: c.parcel_id ?? null, discharge_kind: c.discharge_kind ?? null, address: c.parcel_id ? address.get(String(c.parcel_id)) ?? null : null }]));
    })
    .catch((e) => {
      facts = null;
      throw e;
    });
  return facts;
}

/** The outfalls' ids, for the trace's list and for reading a typed id whatever its case. */
let outfalls: Promise<string[]> | null = null;
function loadOutfalls(): Promise<string[]> {
  outfalls ??= get('/collections/{layer}/items', { path: { layer: 'outfalls' }, query: { limit: 10000 } })
    .then((fc) => fc.features.map((f) => String(f.properties.asset_id ?? f.id)))
    .catch(() => ((outfalls = null), []));
  return outfalls;
}

const SECTIONS: [string, string][] = [
  ['network', 'Connections'],
  ['cases', 'Cases'],
  ['deadlines', 'Deadlines'],
  ['report', 'Report'],
  ['sites', 'Sites'],
  ['calendar', 'Calendar'],
  ['inspections', 'Inspections due'],
];

export function render(el: HTMLElement, ctx: Ctx): void {
  const body = h('div', { id: 'officer-section' });
  const tabs = h('div', { id: 'officer-sections', class: 'subtabs', role: 'group', 'aria-label': 'Officer sections' });
  const open = (name: string, fromLink = false) => {
    tabs.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.section === name)));
    body.replaceChildren();
    body.dataset.section = name;
    // The section rides in the link (`?view=officer&section=cases`); a case picked in
    // another section's link is not carried into this one.
    if (!fromLink) setUrlState({ section: name, case: null });
    ctx.onMapClick(null);
    if (name === 'network') network(body, ctx);
    else if (name === 'cases') renderCases(body, ctx);
    else if (name === 'deadlines') renderDeadlines(body, ctx);
    else if (name === 'sites') renderSites(body, ctx);
    else if (name === 'calendar') renderCalendar(body, ctx);
    else if (name === 'inspections') renderInspectionsDue(body, ctx);
    else renderReport(body, ctx);
  };
  tabs.append(...SECTIONS.map(([name, text]) => h('button', { type: 'button', 'data-section': name, onclick: () => open(name) }, text)));
  // Writes need the officer's role: say so rather than let each one be refused.
  const note = ctx.session.may.enforce ? null : h('p', { class: 'hint', text: 'Opening and acting on cases needs an officer’s token; you may read them.' });
  el.append(h('h2', { text: 'Officer' }), tabs, note ?? '', body);
  const linked = urlState().get('section');
  if (linked && SECTIONS.some(([name]) => name === linked)) open(linked, true);
  else open('network', true);
}

function network(el: HTMLElement, ctx: Ctx): void {
  const out = h('div', { id: 'officer-out' });
  const status = h('select', { id: 'finding-status', name: 'status' }, ...['illicit', 'needs_review', 'ok', 'not_covered', 'illicit,needs_review'].map((s) => h('option', { value: s, text: s.replace(/_/g, ' ') })));
  // Jurisdiction: the registry is one town's, so a connection is in the jurisdiction when
  // it lies inside the town's boundary layer; a watershed narrows it further.
  const where = h('select', { id: 'finding-where', name: 'where' }, h('option', { value: 'all', text: 'anywhere' }), h('option', { value: 'inside', text: 'inside the boundary (the MS4 jurisdiction)' }), h('option', { value: 'outside', text: 'outside the boundary' }));
  const sheds = h('datalist', { id: 'watershed-ids' });
  loadAreas().then((a) => {
    a.watersheds.forEach((w) => where.append(h('option', { value: `ws:${w.id}`, text: `in watershed ${w.id}${w.properties?.name ? ` (${w.properties.name})` : ''}` })));
    sheds.append(...a.watersheds.map((w) => h('option', { value: String(w.id), text: String(w.properties?.name ?? w.id) })));
  });
  const ofs = h('datalist', { id: 'outfall-ids' });
  loadOutfalls().then((ids) => ofs.append(...ids.map((id) => h('option', { value: id }))));
  const outfall = h('input', { id: 'trace-outfall', name: 'outfall', placeholder: 'OF-000002', list: 'outfall-ids', autocomplete: 'off' });
  const shed = h('input', { id: 'watershed-id', name: 'watershed', placeholder: 'WS-0001', list: 'watershed-ids', autocomplete: 'off' });
  el.append(
    h('div', { class: 'field' }, h('label', { for: 'finding-status', text: 'Connections with finding' }), status),
    h('div', { class: 'field' }, h('label', { for: 'finding-where', text: 'Where' }), where),
    h('button', { type: 'button', id: 'list-connections', onclick: () => connections(status.value, where.value, out, ctx) }, 'List connections'),
    h('p', { class: 'hint', text: 'Tap an outfall or a watershed on the map to pick it, or choose it from the list.' }),
    h('div', { class: 'field' }, h('label', { for: 'trace-outfall', text: 'Upstream trace from outfall' }), outfall, ofs),
    h('button', { type: 'button', id: 'trace', onclick: () => trace(outfall.value, out, ctx) }, 'Trace upstream'),
    h('div', { class: 'field' }, h('label', { for: 'watershed-id', text: 'Watershed' }), shed, sheds),
    h('button', { type: 'button', id: 'watershed-list', onclick: () => watershed(shed.value, out, ctx) }, 'Inspection list'),
    h('button', { type: 'button', id: 'smps-no-easement', onclick: () => smps(out, ctx) }, 'SMPs without an easement'),
    out,
  );
  ctx.onMapClick((_at, point) => pick(point, outfall, shed, ctx));
}

/** A tap on the map picks the outfall under it, else the watershed under it. */
function pick(point: { x: number; y: number }, outfall: HTMLInputElement, shed: HTMLInputElement, ctx: Ctx): void {
  const map = getMap();
  const box: [[number, number], [number, number]] = [[point.x - 8, point.y - 8], [point.x + 8, point.y + 8]];
  const layers = (ids: string[]) => ids.filter((id) => map.getLayer(id));
  const of = map.queryRenderedFeatures(box, { layers: layers(['outfalls']) })[0];
  if (of) {
    outfall.value = String(of.properties?.id ?? of.properties?.asset_id ?? of.id);
    return ctx.say(`Picked outfall ${outfall.value}: trace upstream from it.`);
  }
  const ws = map.queryRenderedFeatures([point.x, point.y], { layers: layers(['watersheds-fill']) })[0];
  if (ws) {
    shed.value = String(ws.properties?.id ?? ws.properties?.watershed_id ?? ws.id);
    return ctx.say(`Picked watershed ${shed.value}.`);
  }
  ctx.say('No outfall or watershed there: zoom in to an outfall, or choose one from the list.');
}

async function connections(status: string, where: string, out: HTMLElement, ctx: Ctx): Promise<void> {
  try {
    const query = { status: status.split(',') };
    // The definition gives the JSON answers no schema yet: the fields read here.
    const [a, fc, places, known] = await Promise.all([get('/api/illicit', { query }) as Promise<{ connections: Connection[] }>, getGeoJson('/api/illicit', { query }), loadAreas(), loadFacts()]);
    const replyAt = performance.now();
    if (where !== 'all') {
      const within = where.startsWith('ws:') ? places.watersheds.filter((w) => `ws:${w.id}` === where) : places.boundary;
      const want = where === 'outside' ? 'outside' : 'inside';
      const idOf = (f: Feature) => f.properties.connection_id ?? f.id ?? f.properties.id;
      const areas = within.flatMap((x) => (x.geometry ? [x.geometry] : []));
      const keep = new Set(fc.features.filter((f) => sideOf(f.geometry, areas) === want).map(idOf));
      a.connections = a.connections.filter((c) => keep.has(c.connection_id));
      fc.features = fc.features.filter((f) => keep.has(idOf(f)));
    }
    for (const f of fc.features) f.properties.role = (f.properties.finding as Finding | undefined)?.result ?? f.properties.result ?? 'connection';
    const detail = h('div', { id: 'connection-detail' });
    const fact = (c: Connection) => known.get(c.connection_id);
    out.replaceChildren(
      h('p', { id: 'connection-count', text: `${a.connections.length} connection${a.connections.length === 1 ? '' : 's'} with finding ${status.replace(/_/g, ' ')}${where === 'all' ? '' : `, ${(document.querySelector(`#finding-where option[value="${where}"]`) as HTMLOptionElement | null)?.text ?? where}`}` }),
      table('Connections', a.connections, [
        ['Connection', (c) => h('button', { type: 'button', class: 'link', 'data-connection': c.connection_id, onclick: () => showConnection(c, detail, fc, ctx) }, c.connection_id)],
        ['Finding', (c) => resultWord(c.finding?.result)],
        ['Parcel', (c) => c.parcel_id ?? fact(c)?.parcel_id ?? '—'],
        ['Discharge', (c) => (fact(c)?.discharge_kind ?? '—').replace(/_/g, ' ')],
        ['Address', (c) => fact(c)?.address ?? '—'],
      ]),
      detail,
    );
    await clearTrace();
    await showAnswer(fc);
    markDrawn('connections', replyAt);
    ctx.say(`${a.connections.length} connections listed.`);
  } catch (e) {
    ctx.say((e as Error).message, true);
  }
}

/** A connection's reasons and citations, and the connection itself on the map: drawn
 *  as the one selected among the list, the map brought to it. */
async function showConnection(c: Connection, el: HTMLElement, fc: FC, ctx: Ctx): Promise<void> {
  const f: Finding = c.finding ?? {};
  el.replaceChildren(
    h('h3', { text: `${c.connection_id}: ${resultWord(f.result)}` }),
    h('h4', { text: 'Reasons' }), h('ul', {}, ...(f.reasons ?? []).map((r: string) => h('li', { text: r }))),
    h('h4', { text: 'Citations' }), h('ul', {}, ...(f.citations ?? []).map((x) => h('li', { text: `${x.citation} — ${x.title}` }))),
    h('h4', { text: 'Evidence' }), h('ul', {}, ...(f.evidence ?? []).map((x) => h('li', { text: Object.entries(x).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', ') }))),
  );
  const mine = (x: Feature) => (x.properties.connection_id ?? x.id) === c.connection_id;
  for (const x of fc.features) x.properties.selected = mine(x);
  const picked = fc.features.filter(mine);
  // The selected one drawn last (on top), in the selection's own colour.
  const drawnFc = { type: 'FeatureCollection' as const, features: [...fc.features.filter((x) => !mine(x)), ...picked.map((x) => ({ ...x, properties: { ...x.properties, role: 'selected' } }))] };
  try {
    await showAnswer(drawnFc, false);
    if (picked.length) fitTo({ type: 'FeatureCollection', features: picked });
    document.body.dataset.shown = c.connection_id;
    ctx.say(`${c.connection_id} shown on the map.`);
  } catch (e) {
    ctx.say((e as Error).message, true);
  }
}

type FC = { type: 'FeatureCollection'; features: Feature[] };

async function trace(typed: string, out: HTMLElement, ctx: Ctx): Promise<void> {
  if (!typed.trim()) return ctx.say('Name the outfall to trace from.', true);
  try {
    const id = canonical(typed, await loadOutfalls());
    const req = { path: { asset_id: id }, query: { direction: 'upstream' as const } };
    const all = { query: { status: ['illicit', 'needs_review', 'ok', 'not_covered'] } };
    const [a, fc, judged, known] = await Promise.all([
      get('/api/trace/{asset_id}', req) as Promise<{ trace: { structures: unknown[]; pipes: unknown[] }; connections?: Connection[] }>,
      getGeoJson('/api/trace/{asset_id}', req),
      get('/api/illicit', all) as Promise<{ connections: Connection[] }>,
      loadFacts(),
    ]);
    const replyAt = performance.now();
    const findings = new Map(judged.connections.map((c) => [c.connection_id, c.finding ?? {}]));
    const ranked = rankCandidates(a.connections ?? [], findings, known);
    const byId = new Map(ranked.map((r) => [r.connection_id, r]));
    const features = fc.features.flatMap((f) => {
      const layer = f.properties.layer;
      const kind = layer === 'pipes' ? 'pipe' : layer === 'connections' ? 'candidate' : layer === 'parcels' ? null : 'structure';
      if (!kind) return [];
      const cid = String(f.properties.connection_id ?? f.properties.id ?? f.id);
      return [{ ...f, properties: { ...f.properties, kind, ...(kind === 'candidate' ? { finding: byId.get(cid)?.finding ?? 'unknown', rank: byId.get(cid)?.rank ?? 0 } : {}) } }];
    });
    out.replaceChildren(
      h('p', { id: 'trace-summary', text: `Upstream of ${id}: ${a.trace.structures.length} structures, ${a.trace.pipes.length} pipes, ${(a.connections ?? []).length} candidate connections` }),
      h('p', { class: 'hint', text: 'On the map: the traced pipes in orange, structures as rings, candidates coloured by their finding (red illicit, amber needs review, green ok).' }),
      table('Candidate connections, ranked', ranked, [
        ['Rank', (c) => String(c.rank)],
        ['Connection', (c) => c.connection_id],
        ['Finding', (c) => h('span', { class: 'finding-word', 'data-finding': c.finding }, resultWord(c.finding))],
        ['Parcel', (c) => c.parcel_id ?? '—'],
        ['Discharge', (c) => (c.discharge_kind ?? '—').replace(/_/g, ' ')],
        ['Address', (c) => c.address ?? '—'],
        ['Reasons', (c) => h('ul', {}, ...c.reasons.map((r) => h('li', { text: r })))],
      ]),
    );
    await showTrace({ type: 'FeatureCollection', features });
    markDrawn('trace', replyAt);
    ctx.say(`Traced upstream of ${id}.`);
  } catch (e) {
    ctx.say((e as Error).message, true);
  }
}

/**
 * Rows as CSV (RFC 4180 quoting), by the server's rule for cells a spreadsheet would run
 * (the Rust `domain::csv`): text starting with =, +, -, @, tab or carriage return (or a
 * quote) goes out after a single quote; a plain number such as -3.2 stays a number.
 */
export function csv(rows: Record<string, unknown>[], cols: string[]): string {
  const q = (v: unknown) => {
    let s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s) && Number.isFinite(Number(s));
    if (/^['=+@\t\r-]/.test(s) && !number) s = `'${s}`;
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => q(r[c])).join(','))].join('\r\n') + '\r\n';
}

/** A facility of the watershed's ranked list. */
interface RankedFacility {
  id: string;
  layer: string;
  score: number;
  due?: boolean;
  last_inspection?: { inspected_on?: string } | null;
  reasons?: string[];
}

async function watershed(typed: string, out: HTMLElement, ctx: Ctx): Promise<void> {
  if (!typed.trim()) return ctx.say('Name the watershed.', true);
  try {
    const id = canonical(typed, (await loadAreas()).watersheds.map((w) => String(w.id)));
    const req = { path: { id } };
    const [a, fc] = await Promise.all([
      get('/api/watersheds/{id}/facilities', req) as Promise<{ list?: { facilities?: RankedFacility[] } }>,
      getGeoJson('/api/watersheds/{id}/facilities', req),
    ]);
    const rows: Record<string, unknown>[] = (a.list?.facilities ?? []).map((f, i) => ({
      rank: i + 1,
      id: f.id,
      kind: f.layer,
      score: f.score,
      due: f.due ? 'due' : 'not due',
      last_inspection: f.last_inspection?.inspected_on ?? f.last_inspection ?? 'never',
      reasons: (f.reasons ?? []).join('; '),
    }));
    const cols = ['rank', 'id', 'kind', 'score', 'due', 'last_inspection', 'reasons'];
    const text = csv(rows, cols);
    const link = h('a', { id: 'csv', class: 'button', download: `${id}-inspection-list.csv`, href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })) }, 'Export CSV');
    out.replaceChildren(
      h('p', { id: 'watershed-count', text: `${rows.length} facilities in ${id}, ranked for inspection (hot spots first)` }),
      link,
      table('Ranked for inspection', rows, cols.map((c) => [c.replace(/_/g, ' '), (r: Record<string, unknown>) => String(r[c] ?? '')] as [string, (r: Record<string, unknown>) => string])),
    );
    for (const f of fc.features) f.properties.role = f.properties.layer === 'watersheds' ? 'watershed' : 'near';
    await clearTrace();
    await showAnswer(fc);
    ctx.say(`${rows.length} facilities in ${id}.`);
  } catch (e) {
    ctx.say((e as Error).message, true);
  }
}

async function smps(out: HTMLElement, ctx: Ctx): Promise<void> {
  try {
    const [a, fc] = await Promise.all([
      get('/api/smps-without-easement') as Promise<{ smps: { smp_id: string; finding?: Finding }[] }>,
      getGeoJson('/api/smps-without-easement'),
    ]);
    for (const f of fc.features) f.properties.role = 'illicit';
    out.replaceChildren(table('SMPs without a recorded easement', a.smps, [
      ['SMP', (s) => s.smp_id],
      ['Finding', (s) => resultWord(s.finding?.result)],
      ['Citation', (s) => (s.finding?.citations ?? []).map((c) => c.citation).join('; ')],
    ]));
    await clearTrace();
    await showAnswer(fc);
    ctx.say(`${a.smps.length} SMPs without a recorded easement.`);
  } catch (e) {
    ctx.say((e as Error).message, true);
  }
}
