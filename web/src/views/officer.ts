// The stormwater officer: connections by finding, a connection's reasons and citations,
// the upstream trace from an outfall, a watershed's ranked inspection list (CSV), and the
// SMPs without a recorded easement.
import { get, getGeoJson, type Feature } from '../api';
import { showAnswer } from '../map';
import { h, markDrawn, table, type Ctx } from '../ui';
import { resultWord } from '../facts';
import { sideOf } from '../geo';

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

export function render(el: HTMLElement, ctx: Ctx): void {
  const out = h('div', { id: 'officer-out' });
  const status = h('select', { id: 'finding-status', name: 'status' }, ...['illicit', 'needs_review', 'ok', 'not_covered', 'illicit,needs_review'].map((s) => h('option', { value: s, text: s.replace(/_/g, ' ') })));
  // Jurisdiction: the registry is one town's, so a connection is in the jurisdiction when
  // it lies inside the town's boundary layer; a watershed narrows it further.
  const where = h('select', { id: 'finding-where', name: 'where' }, h('option', { value: 'all', text: 'anywhere' }), h('option', { value: 'inside', text: 'inside the boundary (the MS4 jurisdiction)' }), h('option', { value: 'outside', text: 'outside the boundary' }));
  loadAreas().then((a) => a.watersheds.forEach((w) => where.append(h('option', { value: `ws:${w.id}`, text: `in watershed ${w.id}${w.properties?.name ? ` (${w.properties.name})` : ''}` }))));
  const outfall = h('input', { id: 'trace-outfall', name: 'outfall', placeholder: 'OF-000002' });
  const shed = h('input', { id: 'watershed-id', name: 'watershed', placeholder: 'WS-0001' });
  el.append(
    h('h2', { text: 'Officer' }),
    h('div', { class: 'field' }, h('label', { for: 'finding-status', text: 'Connections with finding' }), status),
    h('div', { class: 'field' }, h('label', { for: 'finding-where', text: 'Where' }), where),
    h('button', { type: 'button', id: 'list-connections', onclick: () => connections(status.value, where.value, out, ctx) }, 'List connections'),
    h('div', { class: 'field' }, h('label', { for: 'trace-outfall', text: 'Upstream trace from outfall' }), outfall),
    h('button', { type: 'button', id: 'trace', onclick: () => trace(outfall.value.trim(), out, ctx) }, 'Trace upstream'),
    h('div', { class: 'field' }, h('label', { for: 'watershed-id', text: 'Watershed' }), shed),
    h('button', { type: 'button', id: 'watershed-list', onclick: () => watershed(shed.value.trim(), out, ctx) }, 'Inspection list'),
    h('button', { type: 'button', id: 'smps-no-easement', onclick: () => smps(out, ctx) }, 'SMPs without an easement'),
    out,
  );
}

async function connections(status: string, where: string, out: HTMLElement, ctx: Ctx): Promise<void> {
  try {
    const query = { status: status.split(',') };
    // The definition gives the JSON answers no schema yet: the fields read here.
    const [a, fc, places] = await Promise.all([get('/api/illicit', { query }) as Promise<{ connections: Connection[] }>, getGeoJson('/api/illicit', { query }), loadAreas()]);
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
    out.replaceChildren(
      h('p', { id: 'connection-count', text: `${a.connections.length} connection${a.connections.length === 1 ? '' : 's'} with finding ${status.replace(/_/g, ' ')}${where === 'all' ? '' : `, ${(document.querySelector(`#finding-where option[value="${where}"]`) as HTMLOptionElement | null)?.text ?? where}`}` }),
      table('Connections', a.connections, [
        ['Connection', (c) => h('button', { type: 'button', class: 'link', 'data-connection': c.connection_id, onclick: () => showConnection(c, detail) }, c.connection_id)],
        ['Finding', (c) => resultWord(c.finding?.result)],
        ['Parcel', (c) => c.parcel_id ?? '—'],
      ]),
      detail,
    );
    await showAnswer(fc);
    markDrawn('connections', replyAt);
  } catch (e) {
    ctx.say((e as Error).message, true);
  }
}

/** A finding as the answers give it (their JSON has no schema in the definition yet). */
interface Finding {
  result?: string;
  reasons?: string[];
  citations?: { citation: string; title: string }[];
  evidence?: Record<string, unknown>[];
}

/** A connection of the illicit answer, or a candidate of a trace. */
interface Connection {
  connection_id: string;
  parcel_id?: string | null;
  finding?: Finding;
}

function showConnection(c: Connection, el: HTMLElement): void {
  const f: Finding = c.finding ?? {};
  el.replaceChildren(
    h('h3', { text: `${c.connection_id}: ${resultWord(f.result)}` }),
    h('h4', { text: 'Reasons' }), h('ul', {}, ...(f.reasons ?? []).map((r: string) => h('li', { text: r }))),
    h('h4', { text: 'Citations' }), h('ul', {}, ...(f.citations ?? []).map((x) => h('li', { text: `${x.citation} — ${x.title}` }))),
    h('h4', { text: 'Evidence' }), h('ul', {}, ...(f.evidence ?? []).map((x) => h('li', { text: Object.entries(x).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', ') }))),
  );
}

async function trace(id: string, out: HTMLElement, ctx: Ctx): Promise<void> {
  if (!id) return ctx.say('Name the outfall to trace from.', true);
  try {
    const req = { path: { asset_id: id }, query: { direction: 'upstream' as const } };
    const [a, fc] = await Promise.all([
      get('/api/trace/{asset_id}', req) as Promise<{ trace: { structures: unknown[]; pipes: unknown[] }; connections?: Connection[] }>,
      getGeoJson('/api/trace/{asset_id}', req),
    ]);
    const replyAt = performance.now();
    for (const f of fc.features) f.properties.role = f.properties.layer === 'parcels' ? 'parcel' : f.properties.layer === 'connections' ? 'needs_review' : 'trace';
    out.replaceChildren(
      h('p', { id: 'trace-summary', text: `Upstream of ${id}: ${a.trace.structures.length} structures, ${a.trace.pipes.length} pipes, ${(a.connections ?? []).length} candidate connections` }),
      table('Candidate connections', a.connections ?? [], [['Connection', (c) => c.connection_id], ['Parcel', (c) => c.parcel_id ?? '—']]),
    );
    await showAnswer(fc);
    markDrawn('trace', replyAt);
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

async function watershed(id: string, out: HTMLElement, ctx: Ctx): Promise<void> {
  if (!id) return ctx.say('Name the watershed.', true);
  try {
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
    await showAnswer(fc);
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
    await showAnswer(fc);
  } catch (e) {
    ctx.say((e as Error).message, true);
  }
}
