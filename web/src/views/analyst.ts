// The analyst: a file for a layer, a dry run, the source's fields beside the canonical
// ones to map, the quality report, then the commit; the map redraws at once from the new
// tile generation.
import { ApiError, get, post } from '../api';
import { getMap, reloadTiles } from '../map';
import { h, table, type Ctx } from '../ui';

const LAYERS = ['outfalls', 'catch_basins', 'manholes', 'pipes', 'smps', 'easements', 'parcels', 'connections', 'connection_records', 'receiving_waters', 'impairments', 'watersheds', 'tmdl_areas', 'boundary', 'inspections'];

/** The source fields a refusal names (`... its fields are: A, B, C. Map one ...`). */
export function sourceFieldsOf(message: string): string[] {
  const m = /its fields are: ([^.]*?)(?:\.|$)/.exec(message);
  return m ? m[1].split(',').map((s) => s.trim()).filter(Boolean) : [];
}

/** The canonical field a refusal names (`no field for outfalls.asset_id`). */
export function canonicalOf(message: string): string | null {
  const m = /no field for [a-z_]+\.([a-z_0-9]+)/.exec(message);
  return m ? m[1] : null;
}

export function render(el: HTMLElement, ctx: Ctx): void {
  const layer = h('select', { id: 'import-layer', name: 'layer' }, ...LAYERS.map((l) => h('option', { value: l, text: l.replace(/_/g, ' ') })));
  const file = h('input', { id: 'import-file', name: 'file', type: 'file', accept: '.zip,.gpkg,.geojson,.json,.csv,.kml,.fgb' });
  const mapping = h('div', { id: 'mapping' });
  const report = h('div', { id: 'report' });
  const state = { source: [] as string[] };
  const reset = () => {
    mapping.replaceChildren();
    report.replaceChildren();
    state.source = [];
  };
  layer.addEventListener('change', reset);
  file.addEventListener('change', reset);
  const go = (dry: boolean) => run(layer.value, file, mapping, report, state, dry, ctx);
  el.append(
    h('h2', { text: 'Analyst: load a layer' }),
    h('div', { class: 'field' }, h('label', { for: 'import-layer', text: 'Layer' }), layer),
    h('div', { class: 'field' }, h('label', { for: 'import-file', text: 'File (zipped shapefile, GeoPackage, GeoJSON, CSV, KML, FlatGeobuf)' }), file),
    h('div', { class: 'row' },
      h('button', { type: 'button', id: 'dry-run', onclick: () => go(true) }, 'Dry run'),
      h('button', { type: 'button', id: 'commit-import', onclick: () => go(false) }, 'Commit'),
    ),
    mapping,
    report,
  );
}

async function canonicalFields(layer: string): Promise<string[]> {
  const sample = await get('/collections/{layer}/items', { path: { layer }, query: { limit: 1 } }).catch(() => null);
  return Object.keys(sample?.features?.[0]?.properties ?? {});
}

async function showMapping(layer: string, mapping: HTMLElement, source: string[], chosen: Record<string, string>, flagged: string | null): Promise<void> {
  const canon = await canonicalFields(layer);
  for (const k of Object.keys(chosen)) if (!canon.includes(k)) canon.push(k);
  if (flagged && !canon.includes(flagged)) canon.unshift(flagged);
  mapping.replaceChildren(table('Fields: each canonical field and the source field it is read from', canon, [
    ['Canonical', (c: string) => c],
    ['Source field', (c: string) => {
      const sel = h('select', { 'data-canonical': c, id: `map-${c}`, 'aria-label': `Source field for ${c}`, 'aria-invalid': c === flagged ? 'true' : undefined },
        h('option', { value: '', text: '— (by name)' }), ...source.map((s) => h('option', { value: s, text: s })));
      sel.value = chosen[c] ?? '';
      return sel;
    }],
  ]));
}

async function run(layer: string, file: HTMLInputElement, mapping: HTMLElement, report: HTMLElement, state: { source: string[] }, dry: boolean, ctx: Ctx): Promise<void> {
  const f = file.files?.[0];
  if (!f) return ctx.say('Choose a file first.', true);
  const form = new FormData();
  form.append('file', f, f.name);
  form.append('dry_run', String(dry));
  const chosen: Record<string, string> = {};
  mapping.querySelectorAll<HTMLSelectElement>('select[data-canonical]').forEach((i) => {
    if (i.value) {
      chosen[i.dataset.canonical!] = i.value;
      form.append('map', `${i.dataset.canonical}=${i.value}`);
    }
  });
  try {
    const r = (await post('/api/layers/{layer}/import', { path: { layer }, body: form })) as QualityReport;
    state.source = [...new Set([...Object.values(r.field_map ?? {}), ...(r.extra_fields ?? []), ...state.source])];
    await showMapping(layer, mapping, state.source, { ...(r.field_map ?? {}), ...chosen }, null);
    showReport(r, report);
    if (!dry) {
      const before = getMap().getSource('ms4') as { tiles?: string[] } | undefined;
      const oldTiles = before?.tiles?.[0];
      await reloadTiles();
      ctx.say(`Committed: ${r.imported} features imported into ${layer}; the map shows them.`);
      document.body.dataset.drawn = `import ${oldTiles ?? ''}`;
    } else ctx.say('Dry run: nothing written. Check the fields and the report, then Commit.');
  } catch (e) {
    const msg = (e as Error).message;
    if (e instanceof ApiError) {
      const src = sourceFieldsOf(msg);
      if (src.length) state.source = src;
      if (state.source.length) await showMapping(layer, mapping, state.source, chosen, canonicalOf(msg));
    }
    report.replaceChildren(h('p', { class: 'error', role: 'alert', id: 'import-error', text: msg }));
  }
}

/** The import's quality report: the definition gives it no schema yet, so these are the
 *  fields the page reads. */
interface QualityReport {
  source?: string;
  source_layer?: string;
  source_crs?: string;
  target_crs?: string;
  read?: number;
  imported?: number;
  rejected?: number;
  dry_run?: boolean;
  problems?: Record<string, number>;
  field_map?: Record<string, string>;
  extra_fields?: string[];
  rejections?: { feature?: number | string; id?: string | null; reason: string }[];
  repaired?: ({ id?: string; feature?: number | string; reason?: string } | string | number)[];
  converted?: Record<string, unknown>;
  warnings?: unknown[];
}

function showReport(r: QualityReport, report: HTMLElement): void {
  const facts: [string, string][] = [
    ['source', `${r.source} (${r.source_layer})`],
    ['CRS', `${r.source_crs} → ${r.target_crs}`],
    ['read', String(r.read)],
    ['imported', String(r.imported)],
    ['rejected', String(r.rejected)],
    ['dry run', r.dry_run ? 'yes: nothing written' : 'no: committed'],
    ...Object.entries(r.problems ?? {}).filter(([, n]) => n).map(([k, n]) => [k.replace(/_/g, ' '), String(n)] as [string, string]),
    ['fields kept as extra attributes', (r.extra_fields ?? []).join(', ') || 'none'],
  ];
  report.replaceChildren(
    table('Quality report', facts, [['Item', (e) => e[0]], ['Value', (e) => e[1]]]),
    table('Rejected features', r.rejections ?? [], [['Feature', (x) => String(x.feature ?? '')], ['Id', (x) => x.id ?? '—'], ['Reason', (x) => x.reason]]),
    table('Repaired polygons', r.repaired ?? [], [['Feature', (x) => (typeof x === 'object' ? `${x.id ?? x.feature}: ${x.reason ?? ''}` : String(x))]]),
    table('Values converted', Object.entries(r.converted ?? {}), [['Field', (x) => x[0]], ['Conversion', (x) => (typeof x[1] === 'object' ? JSON.stringify(x[1]) : String(x[1]))]]),
    table('Warnings', r.warnings ?? [], [['Warning', (x) => (typeof x === 'string' ? x : JSON.stringify(x))]]),
  );
}
