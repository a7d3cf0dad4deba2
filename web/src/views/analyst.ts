// The analyst: a file for a layer, a dry run, the source's fields beside the canonical
// ones to map, the quality report, then the commit (asked first when features would be
// left out); the features loaded are drawn on the map during the dry run and framed after
// the commit, and the map redraws at once from the new tile generation.
import { ApiError, get, post } from '../api';
import { fitTo, getMap, reloadTiles, showAnswer, type FC } from '../map';
import { busy, focusAnswer, h, setUrlState, table, urlState, type Ctx } from '../ui';

/** The layers offered when the registry cannot be asked for its list (every layer of a
 *  registry, the drainage structures too). */
const LAYERS = ['outfalls', 'catch_basins', 'manholes', 'structures', 'pipes', 'smps', 'easements', 'parcels', 'connections', 'connection_records', 'receiving_waters', 'impairments', 'watersheds', 'tmdl_areas', 'boundary', 'inspections', 'discharge_determinations', 'cases'];

/** The registry's layers, as its collections list them. */
let layerList: Promise<string[]> | null = null;
function layers(): Promise<string[]> {
  layerList ??= (get('/collections') as Promise<{ collections?: { id: string }[] }>)
    .then((c) => (c.collections ?? []).map((x) => x.id).filter(Boolean))
    .then((ids) => (ids.length ? ids : LAYERS))
    .catch(() => LAYERS);
  return layerList;
}

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

/** A message of the importer in the page's words: the importer speaks to the command
 *  line (`Map one with --map asset_id=SOURCE_FIELD`), the page has a table of fields. */
export function plainWords(message: string): string {
  return message
    .replace(/Map one with --map ([a-z_0-9]+)=SOURCE_FIELD\.?/g, 'Choose the source field for $1 in the table of fields below, then run again.')
    .replace(/--map ([a-z_0-9]+)=?/g, 'the field mapping of $1 ')
    .replace(/--(dry-run|replace|allow-empty|allow-mass-delete|invalid|where|id-prefix|id|src-layer|s-srs)\b/g, (_m, flag: string) => `the "${flag.replace(/-/g, ' ')}" option`)
    .replace(/\s+/g, ' ')
    .trim();
}

/** What a commit would leave out, as the question asked before it. */
export function commitQuestion(r: { rejected?: number; imported?: number }): string {
  const n = r.rejected ?? 0;
  const rest = r.imported ?? 0;
  return `${n} feature${n === 1 ? '' : 's'} rejected — commit the other ${rest}?`;
}

export function render(el: HTMLElement, ctx: Ctx): void {
  const layer = h('select', { id: 'import-layer', name: 'layer' }, ...LAYERS.map((l) => h('option', { value: l, text: l.replace(/_/g, ' ') })));
  const linked = urlState().get('layer');
  // The registry's own list replaces the built-in one when it comes.
  void layers().then((ids) => {
    const keep = layer.value;
    layer.replaceChildren(...ids.map((l) => h('option', { value: l, text: l.replace(/_/g, ' ') })));
    layer.value = ids.includes(linked ?? '') ? linked! : ids.includes(keep) ? keep : ids[0];
  });
  if (linked && LAYERS.includes(linked)) layer.value = linked;
  const file = h('input', { id: 'import-file', name: 'file', type: 'file', accept: '.zip,.gpkg,.geojson,.json,.csv,.kml,.fgb' });
  const mapping = h('div', { id: 'mapping' });
  const confirm = h('div', { id: 'commit-confirm', role: 'alertdialog', 'aria-labelledby': 'commit-question', hidden: true });
  const report = h('div', { id: 'report' });
  const state: State = { source: [], preview: null };
  const reset = () => {
    mapping.replaceChildren();
    report.replaceChildren();
    confirm.hidden = true;
    state.source = [];
    state.preview = null;
  };
  layer.addEventListener('change', () => {
    reset();
    setUrlState({ layer: layer.value });
  });
  file.addEventListener('change', reset);
  const dryButton = h('button', { type: 'button', id: 'dry-run' }, 'Dry run');
  const commitButton = h('button', { type: 'button', id: 'commit-import' }, 'Commit');
  const controls = [dryButton, commitButton, layer, file];
  const io: Io = { layer: () => layer.value, file, mapping, report, confirm, state, ctx };
  dryButton.addEventListener('click', () => void busy(controls, report, () => dryRun(io)));
  commitButton.addEventListener('click', () => void busy(controls, report, () => askThenCommit(io, controls)));
  el.append(
    h('h2', { text: 'Analyst: load a layer' }),
    h('div', { class: 'field' }, h('label', { for: 'import-layer', text: 'Layer' }), layer),
    h('div', { class: 'field' }, h('label', { for: 'import-file', text: 'File (zipped shapefile, GeoPackage, GeoJSON, CSV, KML, FlatGeobuf)' }), file),
    h('div', { class: 'row' }, dryButton, commitButton),
    confirm,
    mapping,
    report,
  );
}

interface State {
  source: string[];
  /** The file's own features, when the page can read them (GeoJSON), to draw. */
  preview: FC | null;
}

/** What the steps of an import share. */
interface Io {
  layer: () => string;
  file: HTMLInputElement;
  mapping: HTMLElement;
  report: HTMLElement;
  confirm: HTMLElement;
  state: State;
  ctx: Ctx;
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

/** The mapping chosen in the table of fields. */
function chosenMapping(mapping: HTMLElement): Record<string, string> {
  const chosen: Record<string, string> = {};
  mapping.querySelectorAll<HTMLSelectElement>('select[data-canonical]').forEach((i) => {
    if (i.value) chosen[i.dataset.canonical!] = i.value;
  });
  return chosen;
}

/** Sends the file (a dry run or the commit); shows the report, or the refusal beside the
 *  fields. Null when refused. */
async function send(io: Io, dry: boolean): Promise<QualityReport | null> {
  const f = io.file.files?.[0];
  if (!f) {
    io.ctx.say('Choose a file first.', true);
    return null;
  }
  const layer = io.layer();
  const form = new FormData();
  form.append('file', f, f.name);
  form.append('dry_run', String(dry));
  const chosen = chosenMapping(io.mapping);
  for (const [c, src] of Object.entries(chosen)) form.append('map', `${c}=${src}`);
  try {
    const r = (await post('/api/layers/{layer}/import', { path: { layer }, body: form })) as QualityReport;
    io.state.source = [...new Set([...Object.values(r.field_map ?? {}), ...(r.extra_fields ?? []), ...io.state.source])];
    await showMapping(layer, io.mapping, io.state.source, { ...(r.field_map ?? {}), ...chosen }, null);
    showReport(r, io.report);
    return r;
  } catch (e) {
    const msg = (e as Error).message;
    if (e instanceof ApiError) {
      const src = sourceFieldsOf(msg);
      if (src.length) io.state.source = src;
      if (io.state.source.length) await showMapping(layer, io.mapping, io.state.source, chosen, canonicalOf(msg));
    }
    io.report.replaceChildren(h('p', { class: 'error', role: 'alert', id: 'import-error', text: plainWords(msg) }));
    return null;
  }
}

/** The file's features, when the page can read them itself (GeoJSON in longitude and
 *  latitude), each marked loaded or rejected by the report's feature numbers. */
async function preview(file: File, r: QualityReport): Promise<FC | null> {
  if (!/\.(geo)?json$/i.test(file.name) || !/4326|CRS84|WGS 84/i.test(r.source_crs ?? '')) return null;
  try {
    const gj = JSON.parse(await file.text());
    const features: any[] = gj?.type === 'FeatureCollection' ? gj.features ?? [] : gj?.type === 'Feature' ? [gj] : [];
    // GeoJSON features are numbered from 0 in the order of the file (the source's own
    // numbers, as the report gives them) unless they carry numeric ids.
    const numbered = features.some((x) => typeof x?.id === 'number');
    const rejected = new Set((r.rejections ?? []).map((x) => Number(x.feature)));
    return {
      type: 'FeatureCollection',
      features: features.filter((x) => x?.geometry).map((x, i) => {
        const n = numbered ? Number(x.id) : i;
        return { type: 'Feature', geometry: x.geometry, properties: { role: rejected.has(n) ? 'rejected' : 'loaded', feature: n } };
      }),
    };
  } catch {
    return null;
  }
}

/** Draws what the file would load (and what it would leave out), framed: the file's own
 *  features when the page can read them, else the box the report gives of the features
 *  the import would write (any format, any CRS: the server frames them in degrees). */
async function drawPreview(io: Io, r: QualityReport, f: File): Promise<void> {
  io.state.preview = await preview(f, r);
  const shown = io.state.preview?.features.length ? io.state.preview : extentBox(r);
  if (!shown) return;
  await showAnswer(shown, false);
  fitTo(shown, 17);
}

/** The box of the features an import writes (or would), as the report's `changed.extent`
 *  gives it in longitude and latitude; null when it wrote none with a geometry. */
export function extentBox(r: QualityReport): FC | null {
  const e = r.changed?.extent;
  if (!e || e.length !== 4) return null;
  const [w, s, east, n] = e;
  return {
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry: { type: 'Polygon', coordinates: [[[w, s], [east, s], [east, n], [w, n], [w, s]]] }, properties: { role: 'extent', ids: r.changed?.ids?.length ?? 0 } }],
  };
}

/** The features a commit wrote, read back from the registry by the report's ids (within
 *  its box): highlighted whatever the file's format or CRS. Null when none can be read. */
async function written(layer: string, r: QualityReport): Promise<FC | null> {
  const c = r.changed;
  if (!c?.extent || !c.ids?.length) return null;
  const ids = new Set(c.ids);
  const fc = (await get('/collections/{layer}/items', { path: { layer }, query: { bbox: c.extent.join(','), limit: 10000 } } as never).catch(() => null)) as FC | null;
  const features = (fc?.features ?? []).filter((f: any) => ids.has(String(f.id ?? f.properties?.id)));
  return features.length ? { type: 'FeatureCollection', features: features.map((f: any) => ({ type: 'Feature', geometry: f.geometry, properties: { role: 'loaded', id: String(f.id ?? f.properties?.id) } })) } : null;
}

async function dryRun(io: Io): Promise<void> {
  io.confirm.hidden = true;
  const r = await send(io, true);
  if (!r) return;
  await drawPreview(io, r, io.file.files![0]);
  const w = r.would_write;
  const counts = w ? ` (${w.inserted} new, ${w.updated} updated, ${w.unchanged} unchanged, ${w.deleted} deleted)` : '';
  io.ctx.say(`Dry run: nothing written. ${r.imported ?? 0} feature${r.imported === 1 ? '' : 's'} would be loaded${counts}, ${r.rejected ?? 0} rejected. Check the fields and the report, then Commit.`);
  document.body.dataset.drawn = 'dry run';
}

/** A commit that would leave features out asks first (from a dry run of the same file
 *  and mapping); one that would not goes straight on. */
async function askThenCommit(io: Io, controls: (HTMLButtonElement | HTMLInputElement | HTMLSelectElement)[]): Promise<void> {
  io.confirm.hidden = true;
  const dry = await send(io, true);
  if (!dry) return;
  await drawPreview(io, dry, io.file.files![0]);
  if (!(dry.rejected ?? 0)) return commit(io);
  const yes = h('button', { type: 'button', id: 'confirm-commit' }, `Commit the other ${dry.imported ?? 0}`);
  const no = h('button', { type: 'button', id: 'cancel-commit' }, 'Cancel');
  yes.addEventListener('click', () => {
    io.confirm.hidden = true;
    void busy(controls, io.report, () => commit(io));
  });
  no.addEventListener('click', () => {
    io.confirm.hidden = true;
    io.ctx.say('Not committed: nothing written.');
    (document.getElementById('commit-import') as HTMLButtonElement | null)?.focus();
  });
  io.confirm.replaceChildren(
    h('p', { id: 'commit-question', text: commitQuestion(dry) }),
    h('p', { class: 'hint', text: 'The rejected features and every reason are listed in the report below.' }),
    h('div', { class: 'row' }, yes, no),
  );
  io.confirm.hidden = false;
  io.ctx.say('');
  // Focus after the busy controls come back (a disabled control cannot hold it).
  setTimeout(() => yes.focus(), 0);
}

async function commit(io: Io): Promise<void> {
  const r = await send(io, false);
  if (!r) return;
  // The last commit's report, for a script checking the page against the API.
  (window as any).__ms4import = r;
  const layer = io.layer();
  const before = getMap().getSource('ms4') as { tiles?: string[] } | undefined;
  const oldTiles = before?.tiles?.[0];
  await reloadTiles();
  // The features loaded, highlighted and framed: read back from the registry by the
  // report's ids, else what the file held less the rejected, else the report's box.
  const fromFile = io.state.preview ? { type: 'FeatureCollection' as const, features: io.state.preview.features.filter((f) => f.properties.role === 'loaded') } : null;
  const shown = (await written(layer, r)) ?? (fromFile?.features.length ? fromFile : extentBox(r));
  if (shown?.features.length) {
    await showAnswer(shown, false);
    fitTo(shown, 17);
  }
  io.ctx.say(`Committed: ${r.imported} feature${r.imported === 1 ? '' : 's'} loaded into ${layer.replace(/_/g, ' ')}${r.rejected ? `, ${r.rejected} left out` : ''}; ${shown?.features.length ? 'the map shows them highlighted.' : 'the map shows the new data.'}`);
  focusAnswer(io.report.querySelector('table caption')?.parentElement ?? io.report);
  document.body.dataset.drawn = `import ${oldTiles ?? ''}`;
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
  rejections?: { feature?: number | string; id?: string | null; field?: string; reason: string }[];
  outside_boundary?: string[];
  deletes?: unknown[];
  repaired?: ({ id?: string; feature?: number | string; reason?: string } | string | number)[];
  converted?: Record<string, unknown>;
  warnings?: unknown[];
  /** The features written (or, in a dry run, that would be): ids (capped, `more` beyond)
   *  and their box in longitude and latitude (west, south, east, north). */
  changed?: { ids?: string[]; more?: number; extent?: [number, number, number, number] };
  /** A dry run's counts, decided as the write decides. */
  would_write?: { inserted: number; updated: number; unchanged: number; deleted: number };
}

/** The rejected features, each once with every reason given for it, in the source's
 *  order and numbers. */
export function rejectedFeatures(r: QualityReport): { feature: number | string; id: string | null; reasons: string[] }[] {
  const by = new Map<string, { feature: number | string; id: string | null; reasons: string[] }>();
  for (const x of r.rejections ?? []) {
    const key = String(x.feature ?? '');
    const e = by.get(key) ?? { feature: x.feature ?? '', id: x.id ?? null, reasons: [] };
    e.id ??= x.id ?? null;
    e.reasons.push(plainWords(x.field && !x.reason.includes(x.field) ? `${x.field}: ${x.reason}` : x.reason));
    by.set(key, e);
  }
  return [...by.values()].sort((a, b) => Number(a.feature) - Number(b.feature));
}

function showReport(r: QualityReport, report: HTMLElement): void {
  const facts: [string, string][] = [
    ['source', `${r.source} (${r.source_layer})`],
    ['CRS', `${r.source_crs} → ${r.target_crs}`],
    ['read', String(r.read)],
    ['imported', String(r.imported)],
    ['rejected', String(r.rejected)],
    ['dry run', r.dry_run ? 'yes: nothing written' : 'no: committed'],
    ...(r.would_write ? ([['would insert', String(r.would_write.inserted)], ['would update', String(r.would_write.updated)], ['unchanged', String(r.would_write.unchanged)], ['would delete', String(r.would_write.deleted)]] as [string, string][]) : []),
    ...Object.entries(r.problems ?? {}).filter(([, n]) => n).map(([k, n]) => [k.replace(/_/g, ' '), String(n)] as [string, string]),
    ['fields kept as extra attributes', (r.extra_fields ?? []).join(', ') || 'none'],
  ];
  report.replaceChildren(
    table('Quality report', facts, [['Item', (e) => e[0]], ['Value', (e) => e[1]]]),
    table('Rejected features', rejectedFeatures(r), [['Feature (the source\'s number)', (x) => String(x.feature)], ['Id', (x) => x.id ?? '—'], ['Reasons', (x) => h('ul', {}, ...x.reasons.map((why) => h('li', { text: why })))]]),
    table('Repaired polygons', r.repaired ?? [], [['Feature', (x) => (typeof x === 'object' ? `${x.id ?? x.feature}: ${x.reason ?? ''}` : String(x))]]),
    table('Values converted', Object.entries(r.converted ?? {}), [['Conversion', (x) => x[0]], ['Features', (x) => (typeof x[1] === 'object' && x[1] ? Object.entries(x[1] as object).map(([k, v]) => `${k}: ${String(v)}`).join('; ') : String(x[1]))]]),
    table('Features outside the town boundary', r.outside_boundary ?? [], [['Id', (x) => x]]),
    table('Warnings', r.warnings ?? [], [['Warning', (x) => plainWords(typeof x === 'string' ? x : Object.entries(x as object).map(([k, v]) => `${k.replace(/_/g, ' ')}: ${String(v)}`).join('; '))]]),
  );
}
