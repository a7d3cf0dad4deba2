// The analyst: a file for a layer, a dry run, the source's fields beside the canonical
// ones, the quality report, then the commit; the map redraws with the new tiles.
import { api } from '../api';
import { reloadTiles } from '../map';
import { h, table, type Ctx } from '../ui';

const LAYERS = ['outfalls', 'catch_basins', 'manholes', 'pipes', 'smps', 'easements', 'parcels', 'connections', 'connection_records', 'receiving_waters', 'impairments', 'watersheds', 'tmdl_areas', 'boundary', 'inspections'];

export function render(el: HTMLElement, ctx: Ctx): void {
  const layer = h('select', { id: 'import-layer', name: 'layer' }, ...LAYERS.map((l) => h('option', { value: l, text: l.replace(/_/g, ' ') })));
  const file = h('input', { id: 'import-file', name: 'file', type: 'file' });
  const mapping = h('div', { id: 'mapping' });
  const report = h('div', { id: 'report' });
  const go = (dry: boolean) => run(layer.value, file, mapping, report, dry, ctx);
  el.append(
    h('h2', { text: 'Analyst: load a layer' }),
    h('div', { class: 'field' }, h('label', { for: 'import-layer', text: 'Layer' }), layer),
    h('div', { class: 'field' }, h('label', { for: 'import-file', text: 'File (zipped shapefile, GeoPackage, GeoJSON, CSV, KML, FlatGeobuf)' }), file),
    h('button', { type: 'button', id: 'dry-run', onclick: () => go(true) }, 'Dry run'),
    mapping,
    h('button', { type: 'button', id: 'commit-import', onclick: () => go(false) }, 'Commit'),
    report,
  );
}

async function run(layer: string, file: HTMLInputElement, mapping: HTMLElement, report: HTMLElement, dry: boolean, ctx: Ctx): Promise<void> {
  const f = file.files?.[0];
  if (!f) return ctx.say('Choose a file first.', true);
  const form = new FormData();
  form.append('file', f, f.name);
  form.append('dry_run', String(dry));
  mapping.querySelectorAll<HTMLInputElement>('input[data-canonical]').forEach((i) => {
    if (i.value.trim()) form.append('map', `${i.dataset.canonical}=${i.value.trim()}`);
  });
  try {
    const r = await api(`/api/layers/${layer}/import`, { method: 'POST', body: form });
    showReport(r, report, mapping);
    if (!dry) {
      ctx.say(`Committed: ${r.imported ?? 0} features imported into ${layer}.`);
      await reloadTiles();
      document.body.dataset.drawn = 'import';
    } else ctx.say(`Dry run: nothing written. Check the fields and the report, then Commit.`);
  } catch (e) {
    report.replaceChildren(h('p', { class: 'error', role: 'alert', text: (e as Error).message }));
  }
}

function showReport(r: any, report: HTMLElement, mapping: HTMLElement): void {
  const fields: any[] = r.fields ?? r.field_mapping ?? [];
  if (fields.length && !mapping.childElementCount) {
    mapping.append(table('Fields: source beside canonical', fields, [
      ['Canonical', (x: any) => x.canonical ?? x.name],
      ['Source field', (x: any) => h('input', { 'data-canonical': x.canonical ?? x.name, 'aria-label': `Source field for ${x.canonical ?? x.name}`, value: x.source ?? '' })],
    ]));
  }
  const rejected: any[] = r.rejected_features ?? r.rejections ?? [];
  report.replaceChildren(
    table('Quality report', Object.entries(r).filter(([, v]) => typeof v !== 'object'), [['Item', (e: any) => e[0].replace(/_/g, ' ')], ['Value', (e: any) => String(e[1])]]),
    table('Rejected features', rejected, [['Feature', (x: any) => String(x.fid ?? x.id ?? '')], ['Reason', (x: any) => x.reason ?? JSON.stringify(x)]]),
    table('Repaired polygons', r.repaired ?? [], [['Feature', (x: any) => String(x.id ?? x)]]),
    table('Conversions', r.conversions ?? [], [['Conversion', (x: any) => (typeof x === 'string' ? x : JSON.stringify(x))]]),
  );
}
