// The inspection forms, one per kind, built from the server's own definition of
// `POST /api/inspections` (the API document it serves, of which web/openapi.json is the
// copy): every field, its type, unit (in its title), range, choices and whether it is
// required come from there, so the form and the API cannot drift. Field names are the
// API's own paths (`screening.field_tests.ph`), so an error the server sends for a field
// is shown next to that field.

import { components, paths } from '../openapi.json';

export type FieldType = 'select' | 'text' | 'number' | 'textarea' | 'checkbox' | 'date' | 'time';

export interface Field {
  /** The API path of the value (`screening.odour.severity`), or `time` (the hour of
   *  `observed_at`, joined with the date). */
  name: string;
  label: string;
  type: FieldType;
  options?: string[];
  required?: boolean;
  min?: number;
  max?: number;
  step?: string;
  /** Whole numbers only. */
  integer?: boolean;
  /** Words the API's description suggests for a free word (a datalist). */
  suggest?: string[];
  /** The API's description, shown under the field. */
  hint?: string;
  /** An indicator's word: with its `.severity` it is sent as `{kind, severity}`. */
  indicator?: boolean;
  /** The group (fieldset) it is shown in. */
  group?: string;
}

export interface FormDef {
  kind: string;
  title: string;
  /** The facility layer it inspects. */
  layer: string;
  /** The part of the request only this kind has (`screening`, `catch_basin`, `smp`). */
  part: string;
  fields: Field[];
}

type Schema = Record<string, any>;

/** The request body's definition, as the server publishes it. */
export const NEW_INSPECTION: Schema = (paths as any)['/api/inspections'].post.requestBody.content['application/json'].schema;

/** The kinds of inspection, with the facility each inspects and its own part of the
 *  request (the page's words: the API names the kinds, and the test holds the parts to
 *  the definition). */
const KINDS: Record<string, { title: string; layer: string; part: string }> = {
  dry_weather_screening: { title: 'Outfall dry-weather screening', layer: 'outfalls', part: 'screening' },
  smp_maintenance: { title: 'SMP maintenance inspection', layer: 'smps', part: 'smp' },
  catch_basin_cleaning: { title: 'Catch basin cleaning', layer: 'catch_basins', part: 'catch_basin' },
};

/** Fields of the request the page fills itself, never typed: the asset and kind (the
 *  card's), where the device stood, and the id a rewrite names. */
export const FILLED_BY_PAGE = ['asset_id', 'kind', 'position', 'inspection_id'];

/** A `$ref` (or an `allOf` of one, as a documented property has it) made its schema. */
export function resolve(s: Schema): Schema {
  let out = s;
  const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0].$ref : undefined);
  if (ref) {
    const name = String(ref).split('/').pop()!;
    out = { ...(components.schemas as any)[name], ...s, allOf: undefined, $ref: undefined };
    if (!s.title && (components.schemas as any)[name].title) out.title = (components.schemas as any)[name].title;
  }
  return out;
}

function humanise(name: string): string {
  const t = name.replace(/_/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** The words a description lists after its colon (`Odour (...): sewage, sulfide, ...`). */
function suggested(desc: string | undefined): string[] | undefined {
  const m = desc?.match(/:\s*([^:]+?)\.?$/);
  if (!m) return undefined;
  const words = m[1].split(/,\s*/).map((w) => w.trim()).filter((w) => w && w.length < 30 && !w.includes('`'));
  return words.length > 1 ? words : undefined;
}

/** The form fields of one schema at `path`. */
function fieldsOf(path: string, name: string, s0: Schema, required: boolean, group: string): Field[] {
  const s = resolve(s0);
  const label = s.title ?? humanise(name);
  const hint = s.title ? s.description : undefined;
  const base = { name: path, label, required, hint, group };
  if (s.anyOf) {
    // An indicator: a word, or the word and its severity.
    const rated = s.anyOf.find((a: Schema) => a.type === 'object');
    const sev = rated?.properties?.severity;
    return [
      { ...base, type: 'text', indicator: true, suggest: suggested(s0.description ?? s.description) },
      {
        name: `${path}.severity`, label: `${label}: severity`, type: 'select', group,
        options: ['', ...range(sev?.minimum ?? 1, sev?.maximum ?? 3)], hint: sev?.description,
      },
    ];
  }
  if (s.enum) return [{ ...base, type: 'select', options: ['', ...s.enum] }];
  if (s.type === 'boolean') return [{ ...base, type: 'checkbox', required: false }];
  if (s.type === 'number' || s.type === 'integer') {
    return [{ ...base, type: 'number', min: finite(s.minimum), max: finite(s.maximum), step: s.type === 'integer' ? '1' : 'any', integer: s.type === 'integer' }];
  }
  if (s.type === 'object' && s.properties) {
    const req: string[] = s.required ?? [];
    return Object.entries(s.properties as Record<string, Schema>).flatMap(([k, v]) =>
      // Inside an optional part a field is required only once the part is given: the
      // server says so then, naming the field.
      fieldsOf(`${path}.${k}`, k, v, required && req.includes(k), path === group ? label : group),
    );
  }
  return [{ ...base, type: 'text', suggest: s['x-words'] }];
}

function range(lo: number, hi: number): string[] {
  const out: string[] = [];
  for (let i = lo; i <= hi; i++) out.push(String(i));
  return out;
}

function finite(x: unknown): number | undefined {
  return typeof x === 'number' && Math.abs(x) < 1e15 ? x : undefined;
}

/** The fields every inspection has: date and time (editable: one recorded after the
 *  fact), the result (no default), who inspected and notes. */
function commonFields(): Field[] {
  const p = NEW_INSPECTION.properties;
  const req: string[] = NEW_INSPECTION.required;
  const result = p.result;
  return [
    { name: 'inspected_on', label: p.inspected_on.title ?? 'Date', type: 'date', required: req.includes('inspected_on'), hint: undefined },
    { name: 'time', label: p.observed_at.title ?? 'Time', type: 'time' },
    { name: 'result', label: result.title ?? 'Result', type: 'select', options: ['', ...(result['x-words'] ?? [])], required: req.includes('result') },
    { name: 'inspector', label: p.inspector.title ?? 'Inspector', type: 'text', hint: p.inspector.description },
  ];
}

/** The Outfall Reconnaissance Inventory's sections, in the order an inspector meets
 *  them at the outfall: the page's layout of the definition's fields (a field the
 *  definition adds that no section names is shown at the end of its part). */
const SECTIONS: [string, string[]][] = [
  ['Background', ['hours_since_rain', 'air_temperature_f']],
  ['The outfall', ['conveyance', 'material', 'shape', 'width_in', 'height_in', 'submerged', 'not_found', 'not_accessible']],
  ['Flow', ['flow', 'flow_rate_gpm']],
  ['Seen in flowing outfalls', ['odour', 'colour', 'turbidity', 'floatables']],
  ['Seen at every outfall', ['deposits', 'abnormal_vegetation', 'poor_pool_quality', 'benthic_growth', 'damage']],
  ['Field tests', ['field_tests']],
  ['Lab sample', ['lab_sample']],
  ['What it is', ['characterisation']],
];

/** A part's fields in their sections (the part's own name for one that has none). */
function sectioned(part: string, fields: Field[], fallback: string): Field[] {
  const at = (f: Field): [number, string] => {
    const own = f.name.split('.')[1];
    const i = SECTIONS.findIndex(([, names]) => names.includes(own));
    return i < 0 ? [SECTIONS.length * 100, fallback] : [i * 100 + SECTIONS[i][1].indexOf(own), SECTIONS[i][0]];
  };
  if (part !== 'screening') return fields.map((f) => ({ ...f, group: fallback }));
  return fields
    .map((f, n) => ({ f, n, s: at(f) }))
    .sort((a, b) => a.s[0] - b.s[0] || a.n - b.n)
    .map(({ f, s }) => ({ ...f, group: s[1] }));
}

function buildForm(kind: string): FormDef {
  const k = KINDS[kind];
  const part = NEW_INSPECTION.properties[k.part];
  const group = resolve(part).title ?? humanise(k.part);
  const fields = [
    ...commonFields(),
    ...sectioned(k.part, fieldsOf(k.part, k.part, part, false, k.part), group),
    { name: 'notes', label: NEW_INSPECTION.properties.notes.title ?? 'Notes', type: 'textarea' as const },
  ];
  return { kind, title: k.title, layer: k.layer, part: k.part, fields };
}

/** Every form, by kind (the kinds the API names). */
export const FORMS: Record<string, FormDef> = Object.fromEntries(
  ((components.schemas as any).InspectionKind.enum as string[]).filter((k) => KINDS[k]).map((k) => [k, buildForm(k)]),
);

/** The kind of inspection a facility layer gets (none for manholes). */
export function kindFor(layer: string): FormDef | null {
  return Object.values(FORMS).find((f) => f.layer === layer) ?? null;
}

/** A form's values as the page read them: text for every field, booleans for checkboxes. */
export type Values = Record<string, string | boolean>;

function setPath(o: Record<string, any>, path: string, v: unknown): void {
  const parts = path.split('.');
  for (const p of parts.slice(0, -1)) o = o[p] ??= {};
  o[parts[parts.length - 1]] = v;
}

/** The `POST /api/inspections` body for a form's values. Empty values are left out (the
 *  API then stores nothing for them); numbers are sent as numbers, so a wrong one is the
 *  server's to refuse with the field's name. `when` is the device's clock, used when the
 *  form has no date or time typed. */
export function buildInspection(
  def: FormDef,
  assetId: string,
  values: Values,
  when: Date,
  position: { lon: number; lat: number } | null,
): Record<string, unknown> {
  const day = String(values.inspected_on || '') || localDate(when);
  const time = String(values.time || '') || localTime(when);
  const body: Record<string, any> = { asset_id: assetId, kind: def.kind, inspected_on: day, result: String(values.result ?? '') };
  for (const f of def.fields) {
    if (['inspected_on', 'time', 'result'].includes(f.name) || f.name.endsWith('.severity')) continue;
    const v = values[f.name];
    if (v === undefined || v === '' || v === false) continue;
    if (f.indicator) {
      const sev = values[`${f.name}.severity`];
      setPath(body, f.name, sev ? { kind: String(v).trim(), severity: Number(sev) } : String(v).trim());
    } else setPath(body, f.name, f.type === 'number' ? Number(v) : f.type === 'checkbox' ? true : String(v));
  }
  const at = new Date(`${day}T${time}`);
  body.observed_at = Number.isNaN(at.getTime()) ? when.toISOString() : at.toISOString();
  if (position) body.position = { lon: round(position.lon, 7), lat: round(position.lat, 7) };
  return body;
}

function round(x: number, d: number): number {
  const k = 10 ** d;
  return Math.round(x * k) / k;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The date in the device's own time zone, `YYYY-MM-DD` (the day the inspector saw). */
export function localDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The device's hour and minute, `HH:MM`. */
export function localTime(d: Date): string {
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Checks what the page can check before sending: the required fields. */
export function missing(def: FormDef, values: Values): string[] {
  return def.fields.filter((f) => f.required && !values[f.name]).map((f) => f.name);
}

/** What the page can refuse before sending, by field: a number outside the definition's
 *  range or not a number, a severity without what was seen. */
export function invalid(def: FormDef, values: Values): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  for (const f of def.fields) {
    const v = values[f.name];
    if (f.type === 'number' && v !== undefined && v !== '') {
      const x = Number(v);
      if (!Number.isFinite(x)) out.push({ field: f.name, message: `${v} is not a number` });
      else if (f.integer && !Number.isInteger(x)) out.push({ field: f.name, message: `${v} is not a whole number` });
      else if ((f.min !== undefined && x < f.min) || (f.max !== undefined && x > f.max)) {
        out.push({ field: f.name, message: `${x} is outside ${f.min ?? '…'} to ${f.max ?? '…'}` });
      }
    }
    if (f.name.endsWith('.severity') && v && !values[f.name.slice(0, -'.severity'.length)]) {
      out.push({ field: f.name, message: 'say what was seen before how strongly' });
    }
  }
  return out;
}

function getPath(o: any, path: string): unknown {
  return path.split('.').reduce((x, p) => (x === null || x === undefined ? undefined : x[p]), o);
}

/** A request body back as the form's values (an entry the server refused, reopened to
 *  fix it): the inverse of [`buildInspection`]. */
export function valuesFrom(def: FormDef, body: Record<string, any>): Values {
  const values: Values = {};
  for (const f of def.fields) {
    if (f.name === 'time') {
      const at = body.observed_at ? new Date(body.observed_at) : null;
      values.time = at && !Number.isNaN(at.getTime()) ? localTime(at) : '';
      continue;
    }
    if (f.name.endsWith('.severity')) {
      const ind = getPath(body, f.name.slice(0, -'.severity'.length));
      values[f.name] = ind && typeof ind === 'object' ? String((ind as any).severity ?? '') : '';
      continue;
    }
    const v = getPath(body, f.name);
    if (f.type === 'checkbox') values[f.name] = v === true;
    else if (f.indicator && v && typeof v === 'object') values[f.name] = String((v as any).kind ?? '');
    else values[f.name] = v === undefined || v === null ? '' : String(v);
  }
  return values;
}
